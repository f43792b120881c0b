//! The drain: what an endpoint asks its host to do, written as `f64` words
//! into `OUT` once per export call (abi.rs names each event and message;
//! js/module/abi.js carries them out in order).

#[cfg(feature = "references")]
use super::abi::reference as r;
use super::abi::{event as e, message as m};
use super::value::raw;
use super::{clock, Handle, Slot, OUT, SENT, STR};
#[cfg(feature = "references")]
use crate::core::ReferenceEvent;
use crate::core::{Cancellation, Event, Failure, Id, Message, Outcome, Response, Transmit, TICK_MS};

pub(super) fn words(w: &[f64]) {
    OUT.get().extend_from_slice(w);
}

/// A string for an event: its offset and length in `STR`.
pub(super) fn string(text: &str) -> [f64; 2] {
    let s = STR.get();
    let at = s.len();
    s.extend_from_slice(text.as_bytes());
    [at as f64, text.len() as f64]
}

fn flag(b: bool) -> f64 {
    f64::from(u8::from(b))
}

/// How a call of this side's ended, as `SETTLED`'s words `kind, a, b, c, d`:
/// 0 a result (`a` its handle); 1 an error (`a` code, `b, c` its message,
/// `d` data); 2 timed out after it was sent, 3 before; 4 cancelled;
/// 5 destroyed; 6 the connection closed.
pub(super) fn settled(outcome: &Outcome<Handle>) -> [f64; 5] {
    match outcome {
        Outcome::Result(result) => [0.0, result.raw() as f64, 0.0, 0.0, 0.0],
        Outcome::Error(error) => {
            let [at, len] = string(&error.message);
            [1.0, error.code as f64, at, len, raw(&error.data)]
        }
        Outcome::Failed(Failure::Timeout { sent: true }) => [2.0, 0.0, 0.0, 0.0, 0.0],
        Outcome::Failed(Failure::Timeout { sent: false }) => [3.0, 0.0, 0.0, 0.0, 0.0],
        Outcome::Failed(Failure::Cancelled) => [4.0, 0.0, 0.0, 0.0, 0.0],
        Outcome::Failed(Failure::Destroyed) => [5.0, 0.0, 0.0, 0.0, 0.0],
        Outcome::Failed(Failure::ConnectionClosed) => [6.0, 0.0, 0.0, 0.0, 0.0],
    }
}

/// Polls endpoint `ep` dry, writing each event; then the timers it needs.
pub(super) fn drain(ep: u32, slot: &mut Slot) {
    let ep_word = ep as f64;
    // The `refs` of the payload the next event delivers (the core says so just before it).
    #[cfg(feature = "references")]
    let mut stubs: Option<Handle> = None;
    while let Some(event) = slot.core.poll() {
        #[cfg(feature = "references")]
        if let Some(refs) = stubs.take() {
            stubs_of(ep_word, refs, payload_of(&event));
        }
        match event {
            Event::Transmit(transmit) => {
                let sent = SENT.get();
                // A batch of one is still an array: 0 says "one message, alone".
                let n = match &transmit {
                    Transmit::Single(_) => 0.0,
                    Transmit::Batch(messages) => messages.len() as f64,
                };
                let packed = flag(slot.core.packs(&transmit));
                words(&[e::SEND, ep_word, sent.len() as f64, n, packed]);
                for message in transmit.messages() {
                    encode(message);
                }
                sent.push(Some((ep, transmit)));
            }
            Event::Invoke { call, handler, params, meta } => {
                words(&[e::INVOKE, ep_word, call.0 as f64, handler as f64, raw(&params), raw(&meta)])
            }
            Event::Notify { handler, params } => words(&[e::NOTIFY, ep_word, handler as f64, raw(&params)]),
            Event::Unhandled { method } => {
                let [at, len] = string(&method);
                words(&[e::UNHANDLED, ep_word, at, len]);
            }
            Event::Settled { id, waiter, outcome } => {
                let [kind, a, b, c, d] = settled(&outcome);
                words(&[e::SETTLED, ep_word, id as f64, waiter as f64, kind, a, b, c, d]);
            }
            Event::Progress { id, waiter, value } => {
                words(&[e::PROGRESS, ep_word, id as f64, waiter as f64, value.raw() as f64])
            }
            Event::Chunk { id, waiter, chunk } => words(&[e::CHUNK, ep_word, id as f64, waiter as f64, raw(&chunk)]),
            Event::Cancelled { call } => words(&[e::CANCELLED, ep_word, call.0 as f64]),
            Event::CheckExpired { call } => words(&[e::EXPIRED, ep_word, call.0 as f64, 0.0]),
            Event::DeadlinePassed { call } => words(&[e::EXPIRED, ep_word, call.0 as f64, 1.0]),
            Event::MayStream { call } => words(&[e::MAY_STREAM, ep_word, call.0 as f64]),
            Event::WatchPeer(presence) => {
                let [at, len] = string(&presence);
                words(&[e::WATCH, ep_word, at, len]);
            }
            Event::SessionEnded => words(&[e::SESSION_ENDED, ep_word]),
            Event::ScheduleFlush => words(&[e::FLUSH, ep_word]),
            Event::PeerReady(_) => {}
            #[cfg(feature = "references")]
            Event::References(event) => reference(ep_word, event, &mut stubs),
        }
    }
    // Stubs with no payload after them (none of the core's orders): the
    // entry makes them and releases them, so the owner hears of each.
    #[cfg(feature = "references")]
    if let Some(refs) = stubs.take() {
        stubs_of(ep_word, refs, 0.0);
    }
    if slot.idle && !slot.core.is_serving() {
        words(&[e::IDLE, ep_word]);
    }
    // The timers it needs: the tick while calls wait for a reading, one
    // timer for the earliest deadline: no timer work per call.
    let wanted = slot.core.poll_timeout();
    let timers = &mut slot.timers;
    if wanted.reading && !timers.tick {
        timers.tick = true;
        words(&[e::ARM, ep_word, 0.0, TICK_MS as f64]);
    }
    if let Some(at) = wanted.deadline.filter(|at| timers.deadline.is_none_or(|armed| *at < armed)) {
        timers.deadline = Some(at);
        words(&[e::ARM, ep_word, 1.0, (at as f64 - clock()).max(0.0)]);
    }
}

/// The payload an event delivers (the one `refs` name paths into), as a handle word.
#[cfg(feature = "references")]
fn payload_of(event: &Event<Handle, u32, u32>) -> f64 {
    match event {
        Event::Invoke { params, .. } | Event::Notify { params, .. } => raw(params),
        Event::Settled { outcome: Outcome::Result(result), .. } => result.raw() as f64,
        Event::References(ReferenceEvent::Invoke { params, .. }) => raw(params),
        _ => 0.0,
    }
}

/// `[REFERENCE, ep, STUBS, 0, payload, refs, 0, -1]`: before the event that delivers `payload`.
#[cfg(feature = "references")]
fn stubs_of(ep_word: f64, refs: Handle, payload: f64) {
    words(&[e::REFERENCE, ep_word, r::STUBS, 0.0, payload, refs.raw() as f64, 0.0, -1.0]);
}

#[cfg(feature = "references")]
fn reference(ep_word: f64, event: ReferenceEvent<Handle>, stubs: &mut Option<Handle>) {
    match event {
        ReferenceEvent::Stubs(refs) => *stubs = Some(refs),
        ReferenceEvent::Invoke { call, reference, member, params } => {
            let [at, len] = member.as_deref().map_or([0.0, -1.0], string);
            words(&[e::REFERENCE, ep_word, r::INVOKE, call.0 as f64, raw(&params), reference as f64, at, len]);
        }
        ReferenceEvent::Freed(ids) => {
            for id in ids {
                words(&[e::REFERENCE, ep_word, r::FREED, 0.0, 0.0, id as f64, 0.0, -1.0]);
            }
        }
        ReferenceEvent::Dropped => words(&[e::REFERENCE, ep_word, r::DROPPED, 0.0, 0.0, 0.0, 0.0, -1.0]),
    }
}

fn id_raw(id: &Option<Id<Handle>>) -> f64 {
    id.as_ref().map_or(0.0, |id| id.value().raw() as f64)
}

pub(super) fn encode(message: &Message<Handle>) {
    // A call or result with references: `[REFS, refs]` before it.
    #[cfg(feature = "references")]
    if let Message::Request { refs: Some(refs), .. }
    | Message::Notification { refs: Some(refs), .. }
    | Message::Response(Response { refs: Some(refs), .. }) = message
    {
        words(&[m::REFS, refs.raw() as f64]);
    }
    #[cfg(feature = "references")]
    if let Message::Ready { capabilities, .. } = message {
        if capabilities.references {
            words(&[m::OFFERS]);
        }
    }
    match message {
        Message::Request { id, method, params, meta, .. } => {
            words(&[m::REQUEST, *id as f64, method.raw() as f64, raw(params), raw(meta)])
        }
        Message::Notification { method, params, .. } => words(&[m::NOTIFICATION, method.raw() as f64, raw(params)]),
        Message::Response(Response { id, payload: Ok(result), .. }) => {
            words(&[m::RESULT, id_raw(id), result.raw() as f64])
        }
        Message::Response(Response { id, payload: Err(error), .. }) => {
            let [at, len] = string(&error.message);
            words(&[m::ERROR, id_raw(id), error.code as f64, at, len, raw(&error.data)]);
        }
        Message::Cancel { id, convention } => words(&[m::CANCEL, *id as f64, flag(*convention == Cancellation::Mcp)]),
        Message::Chunk { id, chunk } => words(&[m::CHUNK, id.value().raw() as f64, chunk.raw() as f64]),
        Message::StreamEnd { id } => words(&[m::END, id.value().raw() as f64]),
        Message::Credit { id, credit } => words(&[m::CREDIT, *id as f64, *credit as f64]),
        Message::Progress { params, mcp } => words(&[m::PROGRESS, params.raw() as f64, flag(*mcp)]),
        Message::Ready { ack, capabilities: c, presence, session } => {
            let [p_at, p_len] = presence.as_deref().map_or([0.0, -1.0], string);
            let (has, [s_at, s_len], received, resumed, grace) = match session {
                None => (0.0, [0.0, -1.0], 0.0, -1.0, -1.0),
                Some(s) => (
                    1.0,
                    s.id.as_deref().map_or([0.0, -1.0], string),
                    s.received as f64,
                    s.resumed.map_or(-1.0, flag),
                    s.grace_ms.map_or(-1.0, |ms| ms as f64),
                ),
            };
            words(&[
                m::READY,
                flag(*ack),
                flag(c.batches),
                flag(c.split_batch_answers),
                c.max_batch as f64,
                flag(c.stream_credit),
                flag(c.progress),
                p_at,
                p_len,
                has,
                s_at,
                s_len,
                received,
                resumed,
                grace,
                flag(c.packed),
                flag(c.meta),
            ]);
        }
        Message::Ack { received } => words(&[m::ACK, *received as f64]),
        #[cfg(feature = "handoff")]
        Message::Kept(message) => words(&[m::KEPT, message.raw() as f64]),
        #[cfg(feature = "references")]
        Message::Release { refs } => {
            words(&[m::RELEASE, refs.len() as f64]);
            for (id, count) in refs {
                words(&[*id as f64, *count as f64]);
            }
        }
    }
}
