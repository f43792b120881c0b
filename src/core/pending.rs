//! The pending-request table of a caller: id allocation, settlement, deadlines
//! and rejection of everything at once. Time is passed in, never read.

use crate::prelude::*;

use super::table::Table;

/// A point in time in milliseconds on the caller's own clock.
pub type Deadline = u64;

/// Calls this side has sent and not yet seen settled, keyed by the numeric id
/// it allocated. `W` is whatever the caller needs to settle a call later.
///
/// Ids are positive integers below 2^53, so they survive a trip through any
/// JSON or JS number unchanged, and they are never reused while pending: a
/// late answer to an expired call cannot settle a newer one. A response whose
/// id is a string never matches one of them: `1` and `"1"` are different ids.
///
/// Deadlines are kept with their calls and scanned only when the caller's
/// single timer fires, so sending and settling a call never touches them.
pub struct PendingTable<W> {
    next_id: u64,
    calls: Table<u64, Pending<W>>,
}

struct Pending<W> {
    waiter: W,
    deadline: Option<Deadline>,
}

const MAX_SAFE_ID: u64 = (1 << 53) - 1;

impl<W> Default for PendingTable<W> {
    fn default() -> Self {
        PendingTable { next_id: 1, calls: Table::default() }
    }
}

impl<W> PendingTable<W> {
    pub fn new() -> Self {
        Self::default()
    }

    /// Registers a call and returns the id to send it with.
    pub fn insert(&mut self, waiter: W, deadline: Option<Deadline>) -> u64 {
        let mut id = self.next_id;
        while self.calls.contains_key(&id) {
            id = if id >= MAX_SAFE_ID { 1 } else { id + 1 };
        }
        self.next_id = if id >= MAX_SAFE_ID { 1 } else { id + 1 };
        self.calls.insert(id, Pending { waiter, deadline });
        id
    }

    /// Removes a call (answered, aborted or cancelled) and returns its waiter.
    pub fn remove(&mut self, id: u64) -> Option<W> {
        self.calls.remove(&id).map(|call| call.waiter)
    }

    /// The waiter of a pending call, to attach more to it after sending.
    pub fn get_mut(&mut self, id: u64) -> Option<&mut W> {
        self.calls.get_mut(&id).map(|call| &mut call.waiter)
    }

    /// The pending call a response id refers to, if it is one of ours.
    pub fn key_of(id: f64) -> Option<u64> {
        ((1.0..=MAX_SAFE_ID as f64).contains(&id) && id as u64 as f64 == id).then_some(id as u64)
    }

    /// The earliest deadline still pending.
    pub fn next_deadline(&self) -> Option<Deadline> {
        self.calls.values().filter_map(|call| call.deadline).min()
    }

    /// Removes and returns every call whose deadline is at or before `now`,
    /// with the earliest deadline left, for re-arming the timer.
    pub fn expire(&mut self, now: Deadline) -> (Vec<(u64, W)>, Option<Deadline>) {
        let due: Vec<u64> = self
            .calls
            .iter()
            .filter(|(_, call)| call.deadline.is_some_and(|at| at <= now))
            .map(|(&id, _)| id)
            .collect();
        let expired = due.into_iter().filter_map(|id| Some((id, self.remove(id)?))).collect();
        (expired, self.next_deadline())
    }

    /// Removes and returns every pending call (destroy, connection lost).
    pub fn drain(&mut self) -> Vec<(u64, W)> {
        self.calls.drain().map(|(id, call)| (id, call.waiter)).collect()
    }

    pub fn len(&self) -> usize {
        self.calls.len()
    }

    pub fn is_empty(&self) -> bool {
        self.calls.is_empty()
    }
}
