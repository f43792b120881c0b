//! The pending-request table of a caller: id allocation, settlement, deadlines
//! and rejection of everything at once. Time is passed in, never read.

use crate::prelude::*;

use super::table::Table;

/// A point in time in milliseconds on the caller's own clock.
pub type Deadline = u64;

/// When a pending call times out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Due {
    /// At this point on the caller's clock.
    At(Deadline),
    /// This many milliseconds after the clock's next reading (the next
    /// [`PendingTable::expire`]). That reading comes after the call started,
    /// so the call never times out early, and late by at most the time
    /// between readings, which the caller bounds (with a timer). It spares
    /// the caller a clock reading per call, which in a browser costs more
    /// than the rest of sending it.
    AfterNextReading(u64),
}

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
    due: Option<Due>,
    /// A deadline nothing moves (the caller's `maxTotalTimeout`).
    cap: Option<Due>,
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
    pub fn insert(&mut self, waiter: W, due: Option<Due>) -> u64 {
        self.insert_capped(waiter, due, None)
    }

    /// [`PendingTable::insert`], with `cap`: a deadline that nothing moves
    /// (see [`PendingTable::set_due`]).
    pub fn insert_capped(&mut self, waiter: W, due: Option<Due>, cap: Option<Due>) -> u64 {
        let id = self.unused_id();
        self.calls.insert_new(id, Pending { waiter, due, cap });
        id
    }

    /// An id no call holds, taken as a call's would be (the next ones
    /// follow it): for a request whose answer settles nothing.
    pub fn unused_id(&mut self) -> u64 {
        let mut id = self.next_id;
        while self.calls.contains_key(&id) {
            id = if id >= MAX_SAFE_ID { 1 } else { id + 1 };
        }
        self.next_id = if id >= MAX_SAFE_ID { 1 } else { id + 1 };
        id
    }

    /// The id the next call takes (unless a call holds it then).
    pub fn next_id(&self) -> u64 {
        self.next_id
    }

    /// Calls take ids from `id` on (another endpoint's calls used those
    /// before it: a handed session's); an id past the largest starts over at 1.
    pub fn continue_from(&mut self, id: u64) {
        self.next_id = if (1..=MAX_SAFE_ID).contains(&id) { id } else { 1 };
    }

    /// Whether a call waits under `id`.
    pub fn contains(&self, id: u64) -> bool {
        self.calls.contains_key(&id)
    }

    /// A call's deadline moved (progress came): `due` replaces it. Its cap stays.
    pub fn set_due(&mut self, id: u64, due: Option<Due>) {
        if let Some(call) = self.calls.get_mut(&id) {
            call.due = due;
        }
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

    /// The earliest deadline still pending (calls still waiting for a
    /// reading have none yet).
    pub fn next_deadline(&self) -> Option<Deadline> {
        let mut earliest: Option<Deadline> = None;
        let mut consider = |due: Option<Due>| {
            if let Some(Due::At(at)) = due {
                earliest = Some(earliest.map_or(at, |earliest| earliest.min(at)));
            }
        };
        for call in self.calls.values() {
            consider(call.due);
            consider(call.cap);
        }
        earliest
    }

    /// A reading of the clock, `now` (whole milliseconds, rounded down):
    /// calls waiting for it get their deadline, then every call due at or
    /// before `now` is removed and returned, with the earliest deadline left,
    /// for re-arming the timer.
    pub fn expire(&mut self, now: Deadline) -> (Vec<(u64, W)>, Option<Deadline>) {
        // The call started before this reading, which may have been up to
        // 1 ms past `now`: hence the extra millisecond.
        let read = |due: &mut Option<Due>| {
            if let Some(Due::AfterNextReading(timeout)) = *due {
                *due = Some(Due::At(now.saturating_add(timeout).saturating_add(1)));
            }
        };
        let past = |due: Option<Due>| matches!(due, Some(Due::At(at)) if at <= now);
        // The earliest deadline left is found in the same pass.
        let mut earliest: Option<Deadline> = None;
        let mut consider = |due: Option<Due>| {
            if let Some(Due::At(at)) = due {
                earliest = Some(earliest.map_or(at, |earliest| earliest.min(at)));
            }
        };
        let mut expired = Vec::new();
        let due = |_: &u64, call: &mut Pending<W>| {
            read(&mut call.due);
            read(&mut call.cap);
            let due = past(call.due) || past(call.cap);
            if !due {
                consider(call.due);
                consider(call.cap);
            }
            due
        };
        self.calls.remove_where(due, |&id, call| expired.push((id, call.waiter)));
        (expired, earliest)
    }

    /// Removes every pending call (destroy, connection lost), and yields
    /// them in id order.
    pub fn drain(&mut self) -> impl Iterator<Item = (u64, W)> {
        self.calls.drain().map(|(id, call)| (id, call.waiter))
    }

    /// Removes the calls whose id `take` picks, handing each to `removed`,
    /// in id order.
    pub fn remove_where(&mut self, mut take: impl FnMut(u64) -> bool, mut removed: impl FnMut(u64, W)) {
        self.calls.remove_where(|&id, _| take(id), |&id, call| removed(id, call.waiter));
    }

    pub fn len(&self) -> usize {
        self.calls.len()
    }

    pub fn is_empty(&self) -> bool {
        self.calls.is_empty()
    }
}
