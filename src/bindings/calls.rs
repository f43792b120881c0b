//! The calls this side makes (`request`, `notify`, their options as
//! numbers) and serves (a handler's outcome, its chunks and progress, its
//! schema's verdict), the handlers registered, and the endpoint's clock.

use super::abi::call;
use super::value::kind_of_index;
use super::{clock, enter, events, leave, owned, scratch_bytes, slot, whole_ms, with, Handle, Slot, HDR, SCRATCH};
use crate::core::{thrown_error, CallId, CallOptions, Deadline, ErrorObject, Outcome};
use wasm_bindgen::prelude::wasm_bindgen;

/// A refusal's code, its message written at the scratch buffer's address
/// (its length in the header's word 8).
pub(super) fn refusal(error: &ErrorObject<Handle>) -> f64 {
    let s = SCRATCH.get();
    s.clear();
    s.extend_from_slice(error.message.as_bytes());
    HDR.get()[8] = error.message.len() as u32;
    error.code as f64
}

/// The id the caller gave call `call` as a handle JS reads at once (the
/// core holds it while it serves the call), or 0.
pub(super) fn served_id(ep: u32, call: u32) -> f64 {
    slot(ep).and_then(|slot| slot.core.served_id(CallId(call))).map_or(0.0, |id| id.value().raw() as f64)
}

/// A call: its id (from 1); -1 when the endpoint is gone or destroyed; or
/// the code of the error it is refused with (see `refusal`). `kind`: the
/// params' kind + 1 (0: none). `timeout`: NaN for the endpoint's default;
/// not a time above 0: none. `bits`: 1 progress, 2 no reset on progress.
/// `window`: 0 for none. `meta`: its metadata (an object), or 0.
#[wasm_bindgen]
#[allow(clippy::too_many_arguments)]
pub fn request(
    ep: u32,
    method: u32,
    params: u32,
    kind: u32,
    timeout: f64,
    bits: u32,
    window: u32,
    max_total: f64,
    meta: u32,
) -> f64 {
    enter();
    let (method, params, meta) = (Handle::adopt(method), Handle::adopt(params), Handle::adopt(meta));
    let mut id = -1.0;
    if let (Some(slot), Some(method)) = (slot(ep), method) {
        let options = CallOptions {
            timeout_ms: whole_ms(if timeout.is_nan() { slot.default_timeout } else { timeout }),
            window: (window > 0).then_some(window),
            progress: bits & call::PROGRESS != 0,
            reset_on_progress: bits & call::NO_RESET == 0,
            max_total_ms: whole_ms(max_total),
        };
        let kind = kind.checked_sub(1).map(kind_of_index);
        let params = kind.and(params);
        // The `refs` a scan staged for this call (`references::refs`).
        match slot.core.request_of_kind(
            method,
            params,
            meta,
            #[cfg(feature = "references")]
            slot.refs.take(),
            kind,
            0,
            options,
            || clock() as Deadline,
        ) {
            Ok(call) => id = call as f64,
            Err((_, Outcome::Error(error))) => id = refusal(&error),
            Err(_) => {}
        }
        events::drain(ep, slot);
    }
    leave();
    id
}

/// A notification: 0 sent; -1 when the endpoint is gone or destroyed; or
/// the code of the error it is refused with (see `refusal`).
#[wasm_bindgen]
pub fn notify(ep: u32, method: u32, params: u32) -> f64 {
    enter();
    let (method, params) = (Handle::adopt(method), Handle::adopt(params));
    let mut refused = -1.0;
    if let (Some(slot), Some(method)) = (slot(ep), method) {
        if !slot.core.is_destroyed() {
            refused = match notification(slot, method, params) {
                Ok(()) => 0.0,
                Err(error) => refusal(&error),
            };
        }
        events::drain(ep, slot);
    }
    leave();
    refused
}

/// A notification, with the `refs` a scan staged for it.
#[cfg(feature = "references")]
fn notification(slot: &mut Slot, method: Handle, params: Option<Handle>) -> Result<(), ErrorObject<Handle>> {
    match slot.refs.take() {
        Some(refs) => slot.core.notify_with_refs(method, params, refs),
        None => slot.core.notify(method, params),
    }
}

#[cfg(not(feature = "references"))]
fn notification(slot: &mut Slot, method: Handle, params: Option<Handle>) -> Result<(), ErrorObject<Handle>> {
    slot.core.notify(method, params)
}

/// A handler's outcome: `ok` 1 its result (0: `null`), 0 what it threw.
pub(super) fn complete(ep: u32, call: u32, ok: u32, h: u32) {
    let value = Handle::adopt(h);
    with(ep, |slot| {
        let outcome = match (ok, value) {
            (1, value) => Ok(value.unwrap_or_else(Handle::null)),
            (_, thrown) => {
                let thrown = thrown.unwrap_or_else(Handle::null);
                let stack = slot.expose_stack;
                // The core's rule, with the error read whole where it is (in JS).
                Err(thrown_error(&thrown, || thrown.described(stack)))
            }
        };
        #[cfg(feature = "references")]
        if let (Some(refs), Ok(result)) = (slot.refs.take(), &outcome) {
            slot.core.complete_with_refs(CallId(call), result.clone(), refs);
            return;
        }
        slot.core.complete(CallId(call), outcome);
    });
}

/// Handler number `handler` serves the method (or, `notification` 1, the
/// notification) named by the scratch buffer's first `len` bytes. Nothing
/// is drained: what the core asks for then waits for its next input (a
/// transport's `idle()` is not told of each registration).
pub(super) fn set_method(ep: u32, len: usize, handler: u32, notification: u32) {
    let name = owned(scratch_bytes(len));
    if let Some(slot) = slot(ep) {
        match notification {
            0 => slot.core.set_method(&name, handler),
            _ => slot.core.set_notification(&name, handler),
        }
    }
}

/// The end of the turn: what the endpoint held back goes.
pub(super) fn flush(ep: u32) {
    with(ep, |slot| slot.core.flush());
}

/// A timer fired: `which` 0 the tick, 1 the deadline.
pub(super) fn timer(ep: u32, which: u32, now: f64) {
    with(ep, |slot| {
        match which {
            0 => slot.timers.tick = false,
            _ => slot.timers.deadline = None,
        }
        slot.core.handle_timeout(now as Deadline);
    });
}

/// The caller aborted its call `id`.
pub(super) fn cancel(ep: u32, id: f64) {
    with(ep, |slot| {
        slot.core.cancel(id as u64);
    });
}

/// A chunk from the handler of `call`: whether it may send more now.
pub(super) fn emit(ep: u32, call: u32, h: u32) -> u32 {
    let value = Handle::adopt(h);
    let mut more = false;
    with(ep, |slot| {
        if let Some(value) = value {
            slot.core.emit(CallId(call), value);
        }
        more = slot.core.may_stream(CallId(call));
    });
    u32::from(more)
}

pub(super) fn progress(ep: u32, call: u32, h: u32) {
    let value = Handle::adopt(h);
    with(ep, |slot| {
        if let Some(value) = value {
            slot.core.progress(CallId(call), value);
        }
    });
}

/// The caller took `n` more chunks of its call `id` (a windowed stream).
pub(super) fn consumed(ep: u32, id: f64, n: u32) {
    with(ep, |slot| slot.core.consumed(id as u64, n));
}

/// Call `call`'s params failed its schema (`issues`).
pub(super) fn reject_params(ep: u32, call: u32, issues: u32) {
    let issues = Handle::adopt(issues);
    with(ep, |slot| {
        if let Some(issues) = issues {
            slot.core.reject_params(CallId(call), issues);
        }
    });
}

/// Call `call`'s result failed its schema.
pub(super) fn reject_result(ep: u32, call: u32) {
    with(ep, |slot| slot.core.reject_result(CallId(call)));
}

/// Call `call`'s params are being checked asynchronously (bounded by the default timeout).
pub(super) fn checking(ep: u32, call: u32, now: f64) {
    with(ep, |slot| {
        let deadline = whole_ms(now + slot.default_timeout).unwrap_or(0);
        slot.core.checking(CallId(call), deadline);
    });
}

pub(super) fn checked(ep: u32, call: u32) {
    with(ep, |slot| slot.core.checked(CallId(call)));
}
