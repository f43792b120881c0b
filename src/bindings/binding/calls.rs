//! The calls this side makes: `request` and `notify` from JS into the core,
//! their per-call options, and how each call settles back in JS.

use alloc::rc::Rc;

use js_sys::{Array, Promise};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use super::super::boundary::{self as js, keys, option, request_shape};
use super::{destroyed_error, now, Binding};
use crate::core::{code, Deadline, Event, Failure, Message, Outcome, Transmit};

/// Per-call options of `request`. Most calls pass none: then nothing is
/// read, and no option costs a crossing.
#[derive(Default)]
struct CallOptions {
    timeout: Option<f64>,
    signal: Option<js::AbortSignal>,
    transfer: Option<JsValue>,
    on_chunk: Option<JsValue>,
    /// Chunks the other side may send ahead of `onChunk` (flow control).
    window: Option<u32>,
    on_progress: Option<JsValue>,
    /// Whether progress keeps the call alive (`resetTimeoutOnProgress`, on by default).
    reset_on_progress: bool,
    max_total: Option<f64>,
}

impl CallOptions {
    fn read(options: Option<&JsValue>) -> CallOptions {
        let Some(options) = options else {
            return CallOptions { reset_on_progress: true, ..CallOptions::default() };
        };
        let signal = option(options, keys::SIGNAL);
        let on_chunk = present(option(options, keys::ON_CHUNK));
        // Only a call that takes chunks has a window: no crossing for the others.
        let window = on_chunk.as_ref().and_then(|_| option(options, keys::WINDOW).as_f64());
        CallOptions {
            timeout: option(options, keys::TIMEOUT).as_f64(),
            signal: signal.is_object().then(|| signal.unchecked_into()),
            transfer: present(option(options, keys::TRANSFER)),
            on_chunk,
            window: window.filter(|n| *n >= 1.0).map(|n| n.min(u32::MAX as f64) as u32),
            on_progress: present(option(options, keys::ON_PROGRESS)),
            reset_on_progress: option(options, keys::RESET_ON_PROGRESS).as_bool() != Some(false),
            max_total: option(options, keys::MAX_TOTAL_TIMEOUT).as_f64(),
        }
    }
}

fn present(value: JsValue) -> Option<JsValue> {
    (!value.is_undefined()).then_some(value)
}

/// Whole milliseconds at or after `at` (`f64::ceil` needs std's float library).
pub(super) fn ceil_ms(at: f64) -> Deadline {
    let whole = at as Deadline;
    whole + Deadline::from((whole as f64) < at)
}

impl Binding {
    /// Sends a request; the promise settles with its outcome. `options`:
    /// the caller's, if it gave any (a call without them reads none). A
    /// call that goes out at once, alone, is opened and posted in one
    /// crossing (`sendCall`).
    pub fn request(self: &Rc<Self>, method: JsValue, params: JsValue, options: Option<&JsValue>) -> Promise {
        // One crossing reads what the arguments are.
        let shape = js::request_shape(&method, &params);
        let options = CallOptions::read(options);
        if shape & request_shape::METHOD_IS_STRING == 0 {
            return Promise::reject(&js::type_error("method must be a string"));
        }
        if let Some(signal) = options.signal.as_ref().filter(|signal| signal.aborted()) {
            return Promise::reject(&js::rpc_error(code::REQUEST_CANCELLED, "Request aborted", &signal.reason()));
        }
        let params = with_transfer(params, options.transfer.as_ref());
        let kind = match (shape >> request_shape::PARAMS_SHIFT) as u32 {
            0 => None,
            kind => Some(js::kind_from_index(kind - 1)),
        };
        let whole_ms = |ms: f64| (ms.is_finite() && ms > 0.0).then(|| ceil_ms(ms));
        let params = kind.map(|_| params);
        let window = options.window;
        let core_options = crate::core::CallOptions {
            timeout_ms: whole_ms(options.timeout.unwrap_or(self.default_timeout)),
            window,
            progress: options.on_progress.is_some(),
            reset_on_progress: options.reset_on_progress,
            max_total_ms: options.max_total.and_then(whole_ms),
        };
        let undefined = JsValue::UNDEFINED;
        let on_chunk = options.on_chunk.as_ref().unwrap_or(&undefined);
        let on_progress = options.on_progress.as_ref().unwrap_or(&undefined);
        let Some(mut core) = self.core() else {
            return Promise::reject(&js::type_error("re-entrant call"));
        };
        let id = match core.request_of_kind(method.clone(), params, kind, (), core_options, now) {
            Ok(id) => id,
            Err(((), outcome)) => {
                drop(core);
                return refused_call(outcome);
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
        if let Some(signal) = &options.signal {
            js::watch_abort(&self.hooks, id as f64, signal, &self.on_abort);
        }
        // A windowed stream: more credit goes back as `onChunk` takes chunks.
        if window.is_some() {
            js::count_consumed(&self.hooks, id as f64, &self.signalling(js::signal::CONSUMED));
        }
        self.drain();
        promise
    }
    pub fn notify(self: &Rc<Self>, method: JsValue, params: JsValue, options: Option<&JsValue>) -> Result<(), JsValue> {
        if self.core().is_none_or(|core| core.is_destroyed()) {
            return Err(destroyed_error());
        }
        if !method.is_string() {
            return Err(js::type_error("method must be a string"));
        }
        let transfer = options.and_then(|options| present(option(options, keys::TRANSFER)));
        let params = with_transfer(params, transfer.as_ref());
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

/// Params with a per-call transfer list become a `transfer()` marker.
fn with_transfer(params: JsValue, transfer: Option<&JsValue>) -> JsValue {
    match transfer {
        Some(list) if Array::is_array(list) && !params.is_undefined() => js::transfer_marker(&params, list),
        _ => params,
    }
}
