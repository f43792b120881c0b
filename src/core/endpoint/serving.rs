//! The calls this side serves, as their handlers go: chunks and progress
//! (within the caller's credit), the outcome that answers the call, what
//! ends a call its handler has not answered (its caller's deadline, a check
//! that takes too long), and a method's contract (params and result checked
//! by schemas).

use super::*;
use crate::core::pending::Due;
use crate::core::value::number_of;
use crate::core::wire::DEADLINE;

/// What ends a call this side serves if its handler has not answered it by
/// then: an asynchronous check of its params, or its caller's deadline.
pub(super) struct Bound {
    call: CallId,
    due: Due,
    /// The caller's deadline (ms), which the handler's progress starts
    /// again; `None`: the check of its params.
    deadline: Option<u64>,
}

impl<V: Value + PartialEq, H: Clone, W: Clone> Endpoint<V, H, W> {
    /// A handler's chunk for the call it serves (`stream.chunk`); false once
    /// the call has been answered. A chunk past the caller's credit is still
    /// sent: [`Endpoint::may_stream`] says whether the handler should wait.
    pub fn emit(&mut self, call: CallId, chunk: V) -> bool {
        let Some(id) = self.dispatcher.stream(call) else { return false };
        self.send(Message::Chunk { id, chunk }, None);
        true
    }

    /// Whether the handler of `call` may send a chunk now: its caller gave it
    /// credit, or bounds nothing. When it may not, [`Event::MayStream`] says
    /// when it may again.
    pub fn may_stream(&self, call: CallId) -> bool {
        self.dispatcher.may_stream(call)
    }

    /// The handler of `call` reports progress: toward a caller that reads it
    /// (its hello offered `progress`; in MCP's dialect, its request carried a
    /// progress token). Returns whether it went.
    pub fn progress(&mut self, call: CallId, value: V) -> bool {
        let (token, mcp) = match self.config.dialect {
            Dialect::Mcp => match self.progress_tokens.iter().find(|(serving, _)| *serving == call) {
                Some((_, token)) => (token.clone(), true),
                None => return false,
            },
            _ if self.peer.is_some_and(|peer| peer.progress) => match self.dispatcher.id_of(call) {
                Some(id) => (id.value().clone(), false),
                None => return false,
            },
            _ => return false,
        };
        self.send(Message::Progress { params: progress_params(token, value, mcp), mcp }, None);
        // The caller's time starts again, as its timeout does (measured from
        // the next reading: never early, at most a tick late).
        for bound in &mut self.bounds {
            if let (true, Some(ms)) = (bound.call == call, bound.deadline) {
                bound.due = Due::AfterNextReading(ms);
                self.awaiting_reading = true;
            }
        }
        true
    }

    /// The caller has taken `n` more chunks of its call `id`: once it has
    /// taken half a window, the other side may send that many more.
    pub fn consumed(&mut self, id: u64, n: u32) {
        let Some(call) = self.calls.get_mut(id) else { return };
        if call.stream_ended {
            return;
        }
        let Some(window) = &mut call.window else { return };
        window.consumed = window.consumed.saturating_add(n);
        if window.consumed < window.size.div_ceil(2) {
            return;
        }
        let credit = core::mem::take(&mut window.consumed).min(MAX_CREDIT);
        self.send(Message::Credit { id, credit }, None);
    }

    /// How a handler ended. A lone call is answered at once; so is a batch
    /// once its last member is done, or, toward a peer that takes split
    /// answers, at the end of the turn with whatever else of it settled.
    pub fn complete(&mut self, call: CallId, outcome: Result<V, ErrorObject<V>>) {
        self.unbound(call, false);
        // A call in flight has one token at most, and the list is only
        // searched by call: its order is nobody's.
        if let Some(at) = self.progress_tokens.iter().position(|(serving, _)| *serving == call) {
            self.progress_tokens.swap_remove(at);
        }
        if let Some(id) = self.dispatcher.stream_end(call) {
            self.send(Message::StreamEnd { id }, None);
        }
        match self.dispatcher.complete(call, outcome) {
            Some(reply) => self.reply(reply),
            None => self.schedule_flush(),
        }
    }

    // ---- a method's contract: its params and result checked by schemas -------

    /// The params of `call` failed its method's schema: the handler never
    /// runs, and the caller gets `-32602 Invalid params` with `issues` (the
    /// schema's findings) as the error's `data`.
    pub fn reject_params(&mut self, call: CallId, issues: V) {
        self.complete(call, Err(ErrorObject::standard(code::INVALID_PARAMS).with_data(issues)));
    }

    /// The result of `call` failed its method's schema: a bug of this side's,
    /// so the caller gets `-32603` and no part of the result or the findings.
    pub fn reject_result(&mut self, call: CallId) {
        self.complete(call, Err(ErrorObject::new(code::INTERNAL_ERROR, "Internal error: invalid result")));
    }

    /// The params of `call` are being checked asynchronously: unless
    /// [`Endpoint::checked`] comes first, at `deadline` the check is given up,
    /// the call answered `-32603`, and [`Event::CheckExpired`] tells the host
    /// (a schema that never settles must not hold the call for ever).
    pub fn checking(&mut self, call: CallId, deadline: Deadline) {
        if self.dispatcher.is_serving(call) {
            self.checked(call);
            self.bounds.push(Bound { call, due: Due::At(deadline), deadline: None });
            self.wake_by(deadline);
        }
    }

    /// The asynchronous check of `call`'s params has finished.
    pub fn checked(&mut self, call: CallId) {
        self.unbound(call, true);
    }

    /// The bounds of `call` go: all of them, or (`check`) its check's.
    /// One `retain` for both: each closure of its own would link another copy.
    fn unbound(&mut self, call: CallId, check: bool) {
        self.bounds.retain(|bound| bound.call != call || (check && bound.deadline.is_some()));
    }

    /// The clock's reading (whole milliseconds) as the message about to be
    /// received arrived: the deadline a call in it carries ([`DEADLINE`]) is
    /// measured from it. Without one, from the next reading (never early,
    /// at most a tick late).
    pub fn arrived_at(&mut self, now: Deadline) {
        self.arrival = Some(now);
    }

    /// A call about to be served, with its caller's metadata: bounded by
    /// the deadline it gives, if it gives one a timer takes.
    pub(super) fn bound_by_deadline(&mut self, call: CallId, meta: &V) {
        let ms = number_of(Some(meta), DEADLINE).filter(|ms| *ms > 0.0 && *ms < 2_147_483_648.0);
        if let Some(ms) = ms {
            // A fraction of a millisecond is a whole one: never early.
            let whole = ms as u64;
            let ms = whole + u64::from(ms > whole as f64);
            // The arrival's reading is rounded down: a millisecond more, as
            // for a call's own timeout, so that the caller's timer (armed
            // before the call left) fires first.
            let due = self.due_in(ms, self.arrival.map(|now| now + 1));
            self.bounds.push(Bound { call, due, deadline: Some(ms) });
        }
    }

    /// A reading of the clock: every bound due by `now` ends its call, the
    /// rest (their deadlines set, if they waited for a reading) wake the host by theirs.
    pub(super) fn expire_bounds(&mut self, now: Deadline) {
        // One pass, the bounds left pushed back as they come: `retain` with
        // a closure, then a search for the earliest, cost twice the code.
        let mut expired = Vec::new();
        for mut bound in core::mem::take(&mut self.bounds) {
            // As a call's own timeout: the reading may have been up to 1 ms past `now`.
            let at = match bound.due {
                Due::At(at) => at,
                Due::AfterNextReading(ms) => now.saturating_add(ms).saturating_add(1),
            };
            bound.due = Due::At(at);
            if at <= now {
                expired.push(bound);
            } else {
                self.wake_by(at);
                self.bounds.push(bound);
            }
        }
        for Bound { call, deadline, .. } in expired {
            // A call both of whose bounds ended at once is answered once.
            if !self.dispatcher.is_serving(call) {
                continue;
            }
            let error = match deadline {
                None => {
                    self.events.push_back(Event::CheckExpired { call });
                    ErrorObject::new(code::INTERNAL_ERROR, "Internal error: params validation timed out")
                }
                Some(_) => {
                    self.events.push_back(Event::DeadlinePassed { call });
                    ErrorObject::new(code::REQUEST_TIMEOUT, "Deadline exceeded")
                }
            };
            self.complete(call, Err(error));
        }
    }
}
