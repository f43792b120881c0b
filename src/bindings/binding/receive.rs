//! The binding's receiving half: a message as the reader hands it over,
//! what the handlers it runs report, and what JS tells it through its one
//! callback (`signal`).

use crate::prelude::*;

use alloc::rc::Rc;

use js_sys::Array;
use wasm_bindgen::prelude::*;

use super::super::boundary::{self as js, flags};
use super::{calls, now, Binding};
use crate::core::Value;
use crate::core::{
    code, thrown_error, CallId, Envelope, Framing, IdMember, Message, Response, TextRefusal, Transmit, Undelivered,
};

impl Binding {
    /// One message from the transport, as `envelopeReader` read it; `number`
    /// is its id when that is a number, or a batch's length. A batch the core
    /// reads member by member (`Endpoint::takes_batch`) is asked for its
    /// members (returns 1): each comes as a message of its own, flagged
    /// `MEMBER`, and `MEMBERS_END` hands them to the core together. So a
    /// member's envelope is read in one crossing, not one per field.
    pub(super) fn receive(self: &Rc<Self>, message: JsValue, bits: u32, members: [JsValue; 5], number: f64) -> u32 {
        if bits & flags::MEMBER != 0 {
            if let Some(batch) = self.batch.borrow_mut().as_mut() {
                batch.push((bits & flags::KIND == flags::OBJECT).then(|| js::envelope(bits, members, number)));
            }
            return 0;
        }
        if bits & flags::MEMBERS_END != 0 {
            if let Some(batch) = self.batch.take() {
                self.with_core(|core| core.receive_members(batch));
            }
            return 0;
        }
        let id_number = number;
        let framing = if bits & flags::TEXT != 0 {
            self.text.set(true);
            Framing::Text
        } else {
            Framing::Object
        };
        if self.tracer.is_some() {
            self.trace_in(&message, bits, &members, id_number, framing);
        }
        // Traced or not, a batch is read the same way: its members' envelopes as the reader reads a message's.
        if bits & flags::KIND == flags::ARRAY && self.core().is_some_and(|core| core.takes_batch(number as usize)) {
            *self.batch.borrow_mut() = Some(Vec::with_capacity(number as usize));
            return 1;
        }
        self.with_core(|core| match bits & flags::KIND {
            flags::PARSE_FAILED => core.receive_refused(match bits {
                _ if bits & flags::TOO_LARGE != 0 => TextRefusal::TooLarge,
                _ if bits & flags::TOO_DEEP != 0 => TextRefusal::TooDeep,
                _ if bits & flags::NOT_TEXT != 0 => TextRefusal::NotText,
                _ => TextRefusal::NotJson,
            }),
            flags::OBJECT => core.receive_envelope(js::envelope(bits, members, id_number), framing),
            _ => core.receive(&message, framing),
        });
        0
    }

    /// Traces what came in, if it is ours, with the calls of this side's it
    /// answers as the core reads it (for their round-trip times).
    fn trace_in(&self, message: &JsValue, bits: u32, members: &[JsValue; 5], id_number: f64, framing: Framing) {
        let Some(tracer) = self.tracer() else { return };
        let Ok(core) = self.core.try_borrow() else { return };
        let call = |envelope| core.answers(envelope, framing).map_or(JsValue::UNDEFINED, |id| (id as f64).into());
        match bits & flags::KIND {
            flags::PARSE_FAILED => {
                let undefined = JsValue::UNDEFINED;
                tracer.local("parse-error", &undefined, &undefined, &undefined);
            }
            flags::OBJECT if bits & (flags::TEXT | flags::VERSION_2) != 0 => {
                js::trace_received(tracer, message, &call(js::envelope(bits, members.clone(), id_number)));
            }
            flags::ARRAY => {
                // Every member of a batch is ours, whatever the framing.
                let calls: Array = message
                    .elements()
                    .iter()
                    .map(|one| core.answers(Envelope::read(one), Framing::Text))
                    .map(|id| id.map_or(JsValue::UNDEFINED, |id| (id as f64).into()))
                    .collect();
                js::trace_received(tracer, message, &calls);
            }
            _ if bits & flags::TEXT != 0 => js::trace_received(tracer, message, &JsValue::UNDEFINED),
            _ => {}
        }
    }

    pub(super) fn invoke(self: &Rc<Self>, call: CallId, handler: u32, params: Option<JsValue>) {
        let params = params.unwrap_or(JsValue::UNDEFINED);
        match js::invoke(&self.hooks, handler, &params, call.0) {
            // Settles later, through the hooks' `signal`.
            None => {}
            Some(Ok(result)) => self.with_core(|core| core.complete(call, Ok(result))),
            Some(Err(thrown)) => {
                let error = self.thrown(&thrown);
                self.with_core(|core| core.complete(call, Err(error)))
            }
        }
    }

    /// What JS told this binding through its one callback (see
    /// `boundary::signal`); what it answers (`PENDING`, `SESSION`, `CHUNK`), or undefined.
    pub(super) fn signalled(self: &Rc<Self>, what: u32, n: f64, value: JsValue) -> JsValue {
        match what {
            js::signal::TICK => self.clock(true),
            js::signal::DEADLINE => self.clock(false),
            js::signal::FLUSH => self.with_core(|core| core.flush()),
            js::signal::ABORT => self.with_core(|core| {
                core.cancel(n as u64);
            }),
            js::signal::RESOLVED => self.with_core(|core| core.complete(CallId(n as u32), Ok(value))),
            js::signal::REJECTED => {
                let error = self.thrown(&value);
                self.with_core(|core| core.complete(CallId(n as u32), Err(error)))
            }
            js::signal::CHUNK => {
                // Whether the handler may go on: the caller's credit (`emit` returns a promise that waits when not).
                let mut more = false;
                self.with_core(|core| {
                    core.emit(CallId(n as u32), value);
                    more = core.may_stream(CallId(n as u32));
                });
                return JsValue::from_bool(more);
            }
            js::signal::CLOSED => {
                // A session goes on without its connection, unless the transport will open no other.
                let last = js::named(&value, "final").as_bool() == Some(true);
                let now = now();
                let mut goes_on = false;
                self.with_core(|core| match last {
                    true => core.connection_closed(),
                    false => goes_on = core.connection_lost(now),
                });
                if !goes_on {
                    // Nobody is left to answer: running handlers may stop.
                    let reason = js::rpc_error(code::CONNECTION_CLOSED, "Connection closed", &JsValue::UNDEFINED);
                    js::abort_handlers(&self.hooks, &JsValue::UNDEFINED, &reason);
                }
            }
            js::signal::CHECKING => {
                let deadline = calls::ceil_ms(js::performance_now() + self.default_timeout);
                self.with_core(|core| core.checking(CallId(n as u32), deadline));
            }
            js::signal::CHECKED => self.with_core(|core| core.checked(CallId(n as u32))),
            js::signal::CONSUMED => self.with_core(|core| core.consumed(n as u64, 1)),
            js::signal::UNSENT => {
                // `[method, params, what the transport threw]` of a request `sendCall` could not post.
                let [method, params, failure] =
                    [0, 1, 2].map(|at| js_sys::Reflect::get_u32(&value, at).unwrap_or_default());
                let params = Some(params).filter(|params| !params.is_undefined());
                self.refused(Transmit::Single(Message::Request { id: n as u64, method, params }), &failure);
            }
            js::signal::UNSENT_ANSWER => {
                let [id, result, number, failure] =
                    [0, 1, 2, 3].map(|at| js_sys::Reflect::get_u32(&value, at).unwrap_or_default());
                if let IdMember::Valid(id) = js::id_member(n as u32, id, number.as_f64().unwrap_or(0.0)) {
                    let response = Response { id: Some(id), payload: Ok(result) };
                    self.refused(Transmit::Single(Message::Response(response)), &failure);
                }
            }
            js::signal::PROGRESS => self.with_core(|core| {
                core.progress(CallId(n as u32), value);
            }),
            js::signal::INVALID_PARAMS => self.with_core(|core| core.reject_params(CallId(n as u32), value)),
            js::signal::INVALID_RESULT => self.with_core(|core| core.reject_result(CallId(n as u32))),
            js::signal::UNDELIVERED => self.undelivered(&value),
            // The other side is there (a frame that loaded, a socket that
            // opened: a session is presented on it again).
            js::signal::OPENED => self.with_core(|core| core.connection_opened()),
            js::signal::METHOD => self.handle(&value, n as u32, false),
            js::signal::NOTIFICATION => self.handle(&value, n as u32, true),
            js::signal::PENDING => return JsValue::from_f64(self.pending() as f64),
            js::signal::SESSION => return self.session_id(),
            js::signal::DESTROY => self.destroy(),
            _ => {}
        }
        JsValue::UNDEFINED
    }

    /// What a handler's thrown value answers: the core's rule, with the
    /// error read whole where it is (here, in JS).
    pub(super) fn thrown(&self, thrown: &JsValue) -> crate::core::ErrorObject<JsValue> {
        let whole = || {
            Some(js::describe_error(thrown, i32::from(self.expose_stack), i32::from(self.text.get())))
                .filter(|d| !d.is_undefined())
        };
        thrown_error(thrown, whole)
    }

    /// The transport's `undelivered` event, `{ calls, reply?, reason,
    /// message, data? }`: the core decides what each call gets.
    fn undelivered(self: &Rc<Self>, detail: &JsValue) {
        let ids: Vec<u64> =
            js::named(detail, "calls").elements().iter().filter_map(JsValue::as_f64).map(|id| id as u64).collect();
        let reply = js::named(detail, "reply").elements();
        let why = match js::named(detail, "reason").as_string().as_deref() {
            Some("not-json") => Undelivered::NotJson,
            Some("session-expired") => Undelivered::SessionExpired,
            _ => Undelivered::Failed,
        };
        let message = js::named(detail, "message").as_string().unwrap_or_default();
        let data = Some(js::named(detail, "data")).filter(|data| !data.is_undefined());
        let mut failed = Vec::new();
        self.with_core(|core| failed = core.undelivered(&ids, &reply, why, &message, data));
        if let Some(tracer) = self.tracer() {
            for id in failed {
                tracer.local("undelivered", &(id as f64).into(), &JsValue::UNDEFINED, detail);
            }
        }
    }
}
