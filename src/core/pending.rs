//! The pending-request table of a caller: id allocation, settlement, deadlines
//! and rejection of everything at once. Time is passed in, never read.

use std::collections::{BTreeSet, HashMap};

/// A point in time in milliseconds on the caller's own clock.
pub type Deadline = u64;

/// Calls this side has sent and not yet seen settled, keyed by the numeric id
/// it allocated. `W` is whatever the caller needs to settle a call later.
///
/// Ids are positive integers below 2^53, so they survive a trip through any
/// JSON or JS number unchanged. A response whose id is a string never matches
/// one of them: `1` and `"1"` are different ids.
pub struct PendingTable<W> {
    next_id: u64,
    calls: HashMap<u64, Pending<W>>,
    deadlines: BTreeSet<(Deadline, u64)>,
}

struct Pending<W> {
    waiter: W,
    deadline: Option<Deadline>,
}

const MAX_SAFE_ID: u64 = (1 << 53) - 1;

impl<W> Default for PendingTable<W> {
    fn default() -> Self {
        PendingTable {
            next_id: 1,
            calls: HashMap::new(),
            deadlines: BTreeSet::new(),
        }
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
        if let Some(at) = deadline {
            self.deadlines.insert((at, id));
        }
        self.calls.insert(id, Pending { waiter, deadline });
        id
    }

    /// Removes a call (answered, aborted or cancelled) and returns its waiter.
    pub fn remove(&mut self, id: u64) -> Option<W> {
        let call = self.calls.remove(&id)?;
        if let Some(at) = call.deadline {
            self.deadlines.remove(&(at, id));
        }
        Some(call.waiter)
    }

    /// The waiter of a pending call, to attach more to it after sending.
    pub fn get_mut(&mut self, id: u64) -> Option<&mut W> {
        self.calls.get_mut(&id).map(|call| &mut call.waiter)
    }

    /// The pending call a response id refers to, if it is one of ours.
    pub fn key_of(id: f64) -> Option<u64> {
        (id.fract() == 0.0 && (1.0..=MAX_SAFE_ID as f64).contains(&id)).then_some(id as u64)
    }

    /// The earliest deadline still pending, for arming a single timer.
    pub fn next_deadline(&self) -> Option<Deadline> {
        self.deadlines.first().map(|&(at, _)| at)
    }

    /// Removes and returns every call whose deadline is at or before `now`.
    pub fn expire(&mut self, now: Deadline) -> Vec<(u64, W)> {
        let mut expired = Vec::new();
        while let Some(&(at, id)) = self.deadlines.first() {
            if at > now {
                break;
            }
            self.deadlines.pop_first();
            if let Some(call) = self.calls.remove(&id) {
                expired.push((id, call.waiter));
            }
        }
        expired
    }

    /// Removes and returns every pending call (destroy, connection lost).
    pub fn drain(&mut self) -> Vec<(u64, W)> {
        self.deadlines.clear();
        let mut all: Vec<_> = self
            .calls
            .drain()
            .map(|(id, call)| (id, call.waiter))
            .collect();
        all.sort_unstable_by_key(|&(id, _)| id);
        all
    }

    pub fn len(&self) -> usize {
        self.calls.len()
    }

    pub fn is_empty(&self) -> bool {
        self.calls.is_empty()
    }

    /// Whether no bookkeeping remains (no call, no deadline): a leak check.
    pub fn is_clean(&self) -> bool {
        self.calls.is_empty() && self.deadlines.is_empty()
    }
}
