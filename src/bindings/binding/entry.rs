//! The module's message entry points: every endpoint's messages and the
//! results of the handlers the reader runs come in through these exports,
//! which glue.js calls directly with the number the endpoint is known by;
//! and what a drain hands back to that JS to carry out itself.

use crate::prelude::*;

use alloc::rc::{Rc, Weak};
use core::cell::RefCell;

use wasm_bindgen::prelude::*;

use super::super::boundary::{self as js, flags};
use super::{Binding, Core};
use crate::core::{CallId, Event, Message, Outcome, Transmit};

/// The bindings that take messages, by the number their message handler
/// (`envelopeReader`) passes to [`wiggum_receive`]. Every endpoint's
/// messages come in through that one export, called by JS directly: a
/// closure per endpoint would put wasm-bindgen's trampoline (two JS
/// functions and a shim) in front of every message.
/// Each slot holds a binding and how many bindings it has held: an
/// endpoint's number is its slot and that count, so a late call for one
/// that has gone (a timer, a handler settling after it was dropped) never
/// reaches the binding that took its slot after it.
pub(super) struct Endpoints(RefCell<Vec<(Weak<Binding>, u32)>>);

// SAFETY: the wasm layer runs on one thread (`keys` refuses the atomics
// target feature), so the cell is never shared between threads.
unsafe impl Sync for Endpoints {}

pub(super) static ENDPOINTS: Endpoints = Endpoints(RefCell::new(Vec::new()));

/// An endpoint's number: its slot in the low bits, the slot's count above.
const SLOT_BITS: u32 = 16;

impl Endpoints {
    /// A number for `binding`: the slot of one that has gone, or a new one.
    pub(super) fn enter(&self, binding: Weak<Binding>) -> u32 {
        let mut slots = self.0.borrow_mut();
        let at = match slots.iter().position(|(slot, _)| slot.strong_count() == 0) {
            Some(free) => free,
            None => {
                slots.push((Weak::new(), 0));
                slots.len() - 1
            }
        };
        let (slot, held) = &mut slots[at];
        *slot = binding;
        *held = (*held + 1) & ((1 << (32 - SLOT_BITS)) - 1);
        at as u32 | *held << SLOT_BITS
    }

    pub(super) fn get(&self, number: u32) -> Option<Rc<Binding>> {
        let slots = self.0.try_borrow().ok()?;
        let (slot, held) = slots.get((number & ((1 << SLOT_BITS) - 1)) as usize)?;
        (*held == number >> SLOT_BITS).then(|| slot.upgrade())?
    }
}

/// What JS tells endpoint `endpoint` through its one callback (see
/// `boundary::signal`): the binding's answer, or undefined.
#[doc(hidden)]
#[wasm_bindgen(js_name = wiggumSignal, skip_typescript)]
pub fn wiggum_signal(endpoint: u32, what: u32, n: f64, value: JsValue) -> JsValue {
    match ENDPOINTS.get(endpoint) {
        Some(binding) => binding.signalled(what, n, value),
        None => JsValue::UNDEFINED,
    }
}

/// One message for endpoint `endpoint`, as its `envelopeReader` read it
/// (or one member of a batch: see [`Binding::receive`]). Returns 1 when the
/// endpoint asks for a batch's members. Called by glue.js, never by users:
/// it is not in the package's types.
#[doc(hidden)]
#[wasm_bindgen(js_name = wiggumReceive, skip_typescript)]
#[allow(clippy::too_many_arguments)]
pub fn wiggum_receive(
    endpoint: u32,
    message: JsValue,
    flags: u32,
    id: JsValue,
    method: JsValue,
    params: JsValue,
    result: JsValue,
    error: JsValue,
    number: f64,
) -> u32 {
    match ENDPOINTS.get(endpoint) {
        Some(binding) => binding.receive(message, flags, [id, method, params, result, error], number),
        None => 0,
    }
}

/// [`wiggum_receive`] for a message (or a batch's member) with neither
/// result nor error: only the members it has cross, and its method as the
/// reader looked it up (`js::names::expect`). Returns what the reader is
/// left to do: 0 nothing, 1 read the batch's members, or 2 + the call's
/// number + 2^32 × its handler's: run it (see [`wiggum_done`]).
#[doc(hidden)]
#[wasm_bindgen(js_name = wiggumCall, skip_typescript)]
#[allow(clippy::too_many_arguments)]
pub fn wiggum_call(
    endpoint: u32,
    flags: u32,
    id: JsValue,
    method: JsValue,
    params: JsValue,
    number: f64,
    name: i32,
) -> f64 {
    // `UNDEFINED` is a constant: a clone of it would take a table slot.
    const NONE: JsValue = JsValue::UNDEFINED;
    let Some(binding) = ENDPOINTS.get(endpoint) else { return 0.0 };
    js::names::expect(Some(name));
    binding.expect.set(Some(Expect::Call));
    let asked = binding.receive(NONE, flags, [id, method, params, NONE, NONE], number);
    js::names::expect(None);
    match binding.handed_back() {
        Handback::Serve(call, handler) => 2.0 + f64::from(call.0) + f64::from(handler) * 4_294_967_296.0,
        _ => f64::from(asked),
    }
}

/// [`wiggum_receive`] for a message (or a batch's member) with no method or
/// params and one of result and error (`flags` says which): its id and that
/// value. Returns the id + 1 of the call of this side's its result settles,
/// for the reader to resolve (0: the endpoint did what was needed).
#[doc(hidden)]
#[wasm_bindgen(js_name = wiggumAnswer, skip_typescript)]
pub fn wiggum_answer(endpoint: u32, flags: u32, id: JsValue, value: JsValue, number: f64) -> f64 {
    const NONE: JsValue = JsValue::UNDEFINED;
    let (result, error) = match flags & flags::RESULT != 0 {
        true => (value, NONE),
        false => (NONE, value),
    };
    let Some(binding) = ENDPOINTS.get(endpoint) else { return 0.0 };
    binding.expect.set(Some(Expect::Result));
    binding.receive(NONE, flags, [id, NONE, NONE, result, error], number);
    match binding.handed_back() {
        Handback::Resolve(id) => id as f64 + 1.0,
        _ => 0.0,
    }
}

/// The handler the reader ran for call `call` returned `value` at once (or
/// threw it: `threw` 1). Returns 1 or 2 when the answer is the one thing to
/// send, for the reader to post as it is (2: as JSON text); 0 when the
/// endpoint did what was needed.
#[doc(hidden)]
#[wasm_bindgen(js_name = wiggumDone, skip_typescript)]
pub fn wiggum_done(endpoint: u32, call: u32, value: JsValue, threw: u32) -> u32 {
    let Some(binding) = ENDPOINTS.get(endpoint) else { return 0 };
    let call = CallId(call);
    match threw {
        0 => {
            binding.expect.set(Some(Expect::Answer));
            binding.with_core(|core| core.complete(call, Ok(value)));
        }
        _ => {
            let error = binding.thrown(&value);
            binding.with_core(|core| core.complete(call, Err(error)));
        }
    }
    match binding.handed_back() {
        Handback::Post => 1 + u32::from(binding.text.get()),
        _ => 0,
    }
}

/// What a drain left to the JS that fed the core: the last event, when it is
/// the common one and that JS can carry it out with what it holds.
#[derive(Clone, Copy, Default)]
pub(super) enum Handback {
    #[default]
    Nothing,
    /// Run handler number `.1` for the call.
    Serve(CallId, u32),
    /// Post the answer the handler gave, as it is.
    Post,
    /// Resolve this side's call with the result that came.
    Resolve(u64),
}

/// Which [`Handback`] the input being fed may leave.
#[derive(Clone, Copy, PartialEq)]
pub(super) enum Expect {
    Call,
    Answer,
    Result,
}

impl Binding {
    /// The last event, taken as a [`Handback`] if it is what `expect` allows
    /// and this endpoint's JS needs to see nothing of it: no tracer, no
    /// transport that follows calls (`settled`) or wants to hear when all
    /// are answered (`idle`).
    pub(super) fn hand_back(&self, core: &mut Core, expect: Expect) -> Option<Handback> {
        if !self.plain() {
            return None;
        }
        let event = core.poll_last_if(|event| match (expect, event) {
            // jrpc-oo's params reach the handler unwrapped: the reader's are not theirs.
            (Expect::Call, Event::Invoke { .. }) => !self.jrpc_oo,
            (Expect::Answer, Event::Transmit(Transmit::Single(Message::Response(response)))) => {
                response.id.is_some() && response.payload.is_ok()
            }
            (Expect::Result, Event::Settled { outcome: Outcome::Result(_), .. }) => true,
            _ => false,
        })?;
        Some(match event {
            Event::Invoke { call, handler, .. } => Handback::Serve(call, handler),
            Event::Settled { id, .. } => Handback::Resolve(id),
            _ => Handback::Post,
        })
    }

    /// What the last drain handed back, taken.
    fn handed_back(&self) -> Handback {
        self.expect.set(None);
        self.handback.take()
    }
}
