//! The calls this side makes: `request` and `notify` from JS into the core,
//! their per-call options, and how each call settles back in JS.

use alloc::rc::Rc;

use js_sys::Promise;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use super::super::boundary as js;
use super::{destroyed_error, now, Binding};
use crate::core::{code, Deadline, Event, Failure, Message, Outcome, Transmit};

/// Per-call options of `request`, as the endpoint's class read them
/// (`request` in endpoints.js): most calls give none.
pub struct CallOptions {
    /// `timeout` given (`CALL_TIMEOUT`); NaN or less than 1 ms: none.
    pub timeout: Option<f64>,
    /// The caller's abort signal (not aborted yet), or undefined.
    pub signal: JsValue,
    pub on_chunk: JsValue,
    /// Chunks the other side may send ahead of `onChunk` (flow control): 0 for no window.
    pub window: u32,
    pub on_progress: JsValue,
    /// `call_options` bits.
    pub bits: u32,
    pub max_total: f64,
}

/// The bits of [`CallOptions`] (endpoints.js: the build checks them).
pub mod call_options {
    /// `onProgress` given.
    pub const PROGRESS: u32 = 1;
    /// `resetTimeoutOnProgress: false`.
    pub const NO_RESET: u32 = 2;
    /// `timeout` given.
    pub const TIMEOUT: u32 = 4;
}

/// What became of a request: its promise, or (its id) one for its class to
/// open, its request to post as the class gave it (`sendCall`).
pub enum Requested {
    Promise(Promise),
    Post(u64),
}

/// Whole milliseconds at or after `at` (`f64::ceil` needs std's float library).
pub(super) fn ceil_ms(at: f64) -> Deadline {
    let whole = at as Deadline;
    whole + Deadline::from((whole as f64) < at)
}

impl Binding {
    /// Sends a request; the promise settles with its outcome. `kind`: the
    /// params' kind + 1 (0: none), as the class read them with the method
    /// (a string) and the options, if any. A call that goes out at once,
    /// alone, is opened and posted in one crossing (`sendCall`); with no
    /// options, when its request goes as the class gave it, it is left to
    /// the class (`Requested::Post`), which saves that crossing too.
    pub fn request(
        self: &Rc<Self>,
        method: JsValue,
        params: JsValue,
        kind: u32,
        options: Option<CallOptions>,
    ) -> Requested {
        let kind = kind.checked_sub(1).map(js::kind_from_index);
        let whole_ms = |ms: f64| (ms.is_finite() && ms > 0.0).then(|| ceil_ms(ms));
        let params = kind.map(|_| params);
        let bits = options.as_ref().map_or(0, |options| options.bits);
        let window = options.as_ref().map_or(0, |options| options.window);
        let timeout = options.as_ref().and_then(|options| options.timeout);
        let core_options = crate::core::CallOptions {
            timeout_ms: whole_ms(if bits & call_options::TIMEOUT != 0 {
                timeout.unwrap_or(f64::NAN)
            } else {
                self.default_timeout
            }),
            window: (window > 0).then_some(window),
            progress: bits & call_options::PROGRESS != 0,
            reset_on_progress: bits & call_options::NO_RESET == 0,
            max_total_ms: options.as_ref().and_then(|options| whole_ms(options.max_total)),
        };
        let undefined = JsValue::UNDEFINED;
        let on_chunk = options.as_ref().map_or(&undefined, |options| &options.on_chunk);
        let on_progress = options.as_ref().map_or(&undefined, |options| &options.on_progress);
        let Some(mut core) = self.core() else {
            return Requested::Promise(Promise::reject(&js::type_error("re-entrant call")));
        };
        let id = match core.request_of_kind(method.clone(), params, kind, (), core_options, now) {
            Ok(id) => id,
            Err(((), outcome)) => {
                drop(core);
                return Requested::Promise(refused_call(outcome));
            }
        };
        // The common case: the request is all there is to do, and goes as it is.
        let lone =
            core.poll_last_if(|event| matches!(event, Event::Transmit(Transmit::Single(Message::Request { .. }))));
        let lone = match lone {
            Some(Event::Transmit(Transmit::Single(Message::Request { params, .. }))) => Some(params),
            _ => None,
        };
        drop(core);
        let promise = match lone {
            // Its params are the class's: jrpc-oo's dialect would wrap them, and MCP's progress needs an option.
            Some(_) if self.plain() && options.is_none() && !self.jrpc_oo => {
                self.drain();
                return Requested::Post(id);
            }
            Some(params) if self.plain() => {
                let params = params.unwrap_or(JsValue::UNDEFINED);
                let text = i32::from(self.text.get());
                js::send_call(&self.hooks, &self.transport, text, &method, &params, id as f64, on_chunk, on_progress)
            }
            lone => {
                let promise: Promise =
                    js::open_call(&self.hooks, id as f64, &method, on_chunk, on_progress).unchecked_into();
                if let Some(params) = lone {
                    self.transmit(Transmit::Single(Message::Request { id, method, params }));
                }
                promise
            }
        };
        if let Some(signal) = options.as_ref().map(|options| &options.signal).filter(|signal| !signal.is_undefined()) {
            js::watch_abort(&self.hooks, id as f64, signal);
        }
        // A windowed stream: more credit goes back as `onChunk` takes chunks.
        if window > 0 {
            js::count_consumed(&self.hooks, id as f64);
        }
        self.drain();
        Requested::Promise(promise)
    }
    /// Sends a notification (`method` a string, params with their
    /// transfer list, as the class made them): the error to throw, if the
    /// core refuses its params.
    pub fn notify(self: &Rc<Self>, method: JsValue, params: JsValue) -> Result<(), JsValue> {
        if self.core().is_none_or(|core| core.is_destroyed()) {
            return Err(destroyed_error());
        }
        let params = (!params.is_undefined()).then_some(params);
        let mut refused = None;
        self.with_core(|core| refused = core.notify(method, params).err());
        refused.map_or(Ok(()), |error| Err(js::rpc_error_from(&error)))
    }
}

/// Settles call `id` of this side's (its record is in `hooks`).
pub(super) fn settle(hooks: &JsValue, id: u64, outcome: Outcome<JsValue>) {
    let undefined = JsValue::UNDEFINED;
    let (waiter, id) = (hooks, id as f64);
    match outcome {
        Outcome::Result(result) => js::resolve_call(waiter, id, &result),
        Outcome::Error(error) => js::reject_call(waiter, id, &js::rpc_error_from(&error)),
        Outcome::Failed(Failure::Timeout { sent: true }) => js::fail(waiter, id, code::REQUEST_TIMEOUT as f64, "Request timed out", &undefined),
        Outcome::Failed(Failure::Timeout { sent: false }) => js::fail(
            waiter,
            id,
            code::REQUEST_TIMEOUT as f64,
            "Request timed out before it could be sent: the frame never loaded (or, with { handshake: \"wait\" }, never said hello)",
            &undefined,
        ),
        Outcome::Failed(Failure::Cancelled) => js::fail(waiter, id, code::REQUEST_CANCELLED as f64, "Request aborted", &undefined),
        Outcome::Failed(Failure::Destroyed) => js::reject_call(waiter, id, &destroyed_error()),
        Outcome::Failed(Failure::ConnectionClosed) => {
            js::reject_call(waiter, id, &js::rpc_error(code::CONNECTION_CLOSED, "Connection closed", &undefined))
        }
    }
}

/// The promise of a call the core refused before it had an id (the
/// endpoint destroyed, params neither an array nor an object).
fn refused_call(outcome: Outcome<JsValue>) -> Promise {
    Promise::reject(&match outcome {
        Outcome::Error(error) => js::rpc_error_from(&error),
        _ => destroyed_error(),
    })
}
