//! The transport's side of an endpoint: its connection opening and closing,
//! the calls it could not deliver (HTTP's `undelivered`), a send it refused,
//! what its hooks ask (`pending`, `serving`, `waiting`, the session), the
//! session a hello presents, and the WebSocket transport's reconnect schedule.

use crate::prelude::*;
use wasm_bindgen::prelude::wasm_bindgen;

use super::abi::event;
use super::events::words;
use super::value::text_of;
use super::{leave, slot, to_scratch, with, Handle, SENT};
use crate::core::{Backoff, Deadline, Undelivered, Value};

/// The other side is there (a frame that loaded, a socket that opened: a
/// session is presented on it again).
pub(super) fn connection_opened(ep: u32) {
    with(ep, |slot| slot.core.connection_opened());
}

/// The connection closed (`last`: no other will follow) or dropped at
/// `now`: whether a session goes on.
pub(super) fn connection_lost(ep: u32, last: u32, now: f64) -> u32 {
    let mut goes_on = false;
    with(ep, |slot| match last {
        1 => slot.core.connection_closed(),
        _ => goes_on = slot.core.connection_lost(now as Deadline),
    });
    u32::from(goes_on)
}

/// The transport got no response to the calls `calls` (an array of their
/// ids), `message` saying why: `reply` an array of what its reply held (0:
/// none), `why` 0 failed, 1 not JSON, 2 session expired, `data` (0: none).
/// The core decides what each call gets; each call failed so is an
/// `UNDELIVERED` event after those (for an observer).
#[wasm_bindgen]
pub fn undelivered(ep: u32, calls: u32, message: u32, reply: u32, why: u32, data: u32) {
    let (calls, message, reply, data) =
        (Handle::adopt(calls), Handle::adopt(message), Handle::adopt(reply), Handle::adopt(data));
    let ids: Vec<u64> = calls
        .map(|c| c.elements())
        .unwrap_or_default()
        .iter()
        .filter_map(Value::as_number)
        .map(|id| id as u64)
        .collect();
    let message = message.and_then(|m| m.as_text()).unwrap_or_default();
    let reply = reply.map(|r| r.elements()).unwrap_or_default();
    let why = match why {
        1 => Undelivered::NotJson,
        2 => Undelivered::SessionExpired,
        _ => Undelivered::Failed,
    };
    let mut failed = Vec::new();
    with(ep, |slot| failed = slot.core.undelivered(&ids, &reply, why, &message, data));
    for id in failed {
        words(&[event::UNDELIVERED, ep as f64, id as f64]);
    }
    leave();
}

/// The transport refused what went out as event `sent` (its third word),
/// for the reason `reason` (its text): the core decides what goes instead;
/// a lone call it gives back is returned (its id; 0: none) for JS to fail.
#[wasm_bindgen]
pub fn transmit_failed(sent: u32, reason: u32) -> f64 {
    let reason = Handle::adopt(reason);
    let Some(Some((ep, transmit))) = SENT.get().get_mut(sent as usize).map(Option::take) else { return 0.0 };
    let text = reason.as_ref().and_then(|r| text_of(r.raw())).unwrap_or_default();
    let mut unsent = 0.0;
    with(ep, |slot| {
        if let Some((id, _)) = slot.core.transmit_failed(transmit, &text, Handle::encodable) {
            unsent = id as f64;
        }
    });
    unsent
}

/// Calls of this side's still waiting for a response.
pub(super) fn pending(ep: u32) -> u32 {
    slot(ep).map_or(0, |slot| slot.core.pending() as u32)
}

/// Whether `id` is a call of this side's that waits (an observer times only those).
pub(super) fn waiting(ep: u32, id: f64) -> u32 {
    slot(ep).map_or(0, |slot| u32::from(slot.core.is_waiting(id as u64)))
}

/// The session's id, written at the scratch buffer's address: its length (-1: none).
pub(super) fn session_id(ep: u32) -> i32 {
    let id = slot(ep).and_then(|slot| slot.core.session_id().map(String::from));
    id.map_or(-1, |id| to_scratch(&id))
}

/// The session a client's hello presents (`h`, a parsed message), if any:
/// its length at the scratch buffer's address (-1: none). How a server of
/// many clients finds the session a new connection belongs to.
#[wasm_bindgen]
pub fn presented_session(h: u32) -> i32 {
    let value = Handle::adopt(h);
    let found = value.as_ref().and_then(crate::core::presented_session);
    found.map_or(-1, |id| to_scratch(&id))
}

/// The wait before reconnect attempt `attempt` (from 1), or -1 to give up:
/// the WebSocket transport asks before each attempt, with the settings of
/// its `reconnect` option, each NaN where not given.
#[wasm_bindgen]
pub fn reconnect_delay(
    initial: f64,
    max: f64,
    factor: f64,
    jitter: f64,
    attempts: f64,
    attempt: u32,
    random: f64,
) -> f64 {
    let defaults = Backoff::default();
    let given = |value: f64, default: f64| if value.is_nan() { default } else { value };
    let backoff = Backoff {
        initial_ms: given(initial, defaults.initial_ms),
        max_ms: given(max, defaults.max_ms),
        factor: given(factor, defaults.factor),
        jitter: given(jitter, defaults.jitter),
        max_attempts: attempts.is_finite().then(|| attempts.max(0.0) as u32),
    };
    backoff.delay_ms(attempt, random).unwrap_or(-1.0)
}
