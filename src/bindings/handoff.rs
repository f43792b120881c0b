//! Sessions handed between processes (feature `handoff`, the Node build,
//! where a hub runs across processes): `hand_off` takes a server
//! endpoint's session out as a `HANDED` event, which js/module/handoff.js
//! makes the JSON form src/core/endpoint/handoff.rs describes; `take_over`
//! makes that form a fresh endpoint's session. The core keeps every rule.

use super::abi::event as e;
use super::events::{encode, string, words};
use super::value::Handle;
use super::{clock, enter, events, leave, owned, scratch_bytes, slot, with, SENT};
use crate::core::{kept_sends, Deadline, HandOffRefused, HandedSession, Transmit};
use wasm_bindgen::prelude::wasm_bindgen;

/// 2^53 − 1: the largest count a double holds with every whole number below it.
const MOST: f64 = 9_007_199_254_740_991.0;

/// Takes endpoint `ep`'s session out: 0, its `HANDED` event written with
/// what the hand-off did (its own calls fail); or why not: -1 it has no
/// session (or no endpoint), -2 it is busy, -3 references are held.
#[wasm_bindgen]
pub fn hand_off(ep: u32) -> i32 {
    enter();
    let answer = match slot(ep) {
        None => -1,
        Some(slot) => match slot.core.hand_off() {
            Err(HandOffRefused::NoSession) => -1,
            Err(HandOffRefused::Busy) => -2,
            Err(HandOffRefused::References) => -3,
            Ok(handed) => {
                handed_event(ep, handed);
                events::drain(ep, slot);
                0
            }
        },
    };
    leave();
    answer
}

fn handed_event(ep: u32, handed: HandedSession<Handle>) {
    let [at, len] = string(&handed.id);
    words(&[
        e::HANDED,
        ep as f64,
        handed.sent as f64,
        handed.received as f64,
        handed.grace_ms as f64,
        handed.max_kept as f64,
        handed.next_call as f64,
        at,
        len,
        handed.unacked.len() as f64,
        handed.held.len() as f64,
    ]);
    for transmit in handed.unacked.into_iter().chain(handed.held) {
        words(&[match &transmit {
            Transmit::Single(_) => 0.0,
            Transmit::Batch(messages) => messages.len() as f64,
        }]);
        for message in transmit.messages() {
            encode(message);
        }
        // Its handles live until JS has read the event (as a send's do).
        SENT.get().push(Some((ep, transmit)));
    }
}

/// A count JS gave: a whole number a double holds exactly, not below 0.
fn count(n: f64) -> Option<u64> {
    ((0.0..=MOST).contains(&n) && n as u64 as f64 == n).then_some(n as u64)
}

/// Makes the session JS read from its JSON form endpoint `ep`'s (a fresh
/// server endpoint): its id the scratch buffer's first `id_len` bytes, its
/// counts as given, its kept sends handles `unacked` and `held` (the core
/// says what they may be). 1 if taken.
#[wasm_bindgen]
#[allow(clippy::too_many_arguments)]
pub fn take_over(
    ep: u32,
    sent: f64,
    received: f64,
    grace: f64,
    max_kept: f64,
    next_call: f64,
    id_len: usize,
    unacked: u32,
    held: u32,
) -> u32 {
    enter();
    let id = owned(scratch_bytes(id_len));
    let sends = |h: u32| Handle::adopt(h).and_then(|list| kept_sends(&list));
    let handed = (|| {
        Some(HandedSession {
            id,
            grace_ms: count(grace)?,
            max_kept: usize::try_from(count(max_kept)?).ok()?,
            sent: count(sent)?,
            received: count(received)?,
            unacked: sends(unacked)?,
            held: sends(held)?,
            next_call: count(next_call)?,
        })
    })();
    let mut taken = 0;
    match handed {
        Some(handed) => with(ep, |slot| taken = u32::from(slot.core.take_over(handed, clock() as Deadline))),
        None => leave(),
    }
    taken
}
