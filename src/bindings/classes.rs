//! The exports behind the classes users see: `JSONRPCClient`, `JSONRPCServer`
//! and `Peer` are JS classes (`js/module/endpoints.js`) holding their
//! endpoint's JS state, which names the endpoint by its number. They open
//! it and make calls through these; the rest (registering a handler, its
//! pending calls, its session, `destroy()`) is the endpoint's one callback,
//! `wiggumSignal`. None is in the package's types: only that JS calls them.

use alloc::string::String;

use wasm_bindgen::prelude::*;

use super::binding::{Binding, CallOptions, Requested};
use super::boundary as js;
use crate::core::Roles;

/// Opens an endpoint on `transport`: its JS state (`handlerHooks`), or the
/// error to throw. `roles`: 1 calls, 2 serves, 3 both.
#[doc(hidden)]
#[wasm_bindgen(js_name = wiggumOpen, skip_typescript)]
pub fn wiggum_open(transport: JsValue, roles: u32, options: JsValue) -> JsValue {
    let roles = Roles { client: roles & 1 != 0, server: roles & 2 != 0 };
    match Binding::open(transport, roles, &options) {
        Ok(binding) => binding.hooks().clone(),
        Err(error) => error,
    }
}

/// A request of endpoint `endpoint` with no options. When its request is
/// the one thing to send and goes as given: the call's id, for the class to
/// open it and post its request itself (`sendCall`), negative when the
/// transport speaks JSON text. Otherwise 0, and the call's promise is the
/// endpoint's `hooks.opened`; NaN once the endpoint is destroyed. (A number,
/// not a JS value: returning one would cross once more to make it.)
/// `kind`: the params' kind + 1, 0 for none (the class checked that
/// `method` is a string).
#[doc(hidden)]
#[wasm_bindgen(js_name = wiggumRequest, skip_typescript)]
pub fn wiggum_request(endpoint: u32, method: JsValue, params: JsValue, kind: u32) -> f64 {
    let Some(binding) = Binding::numbered(endpoint) else { return f64::NAN };
    match binding.request(method, params, kind, None) {
        Requested::Promise(promise) => {
            js::opened(binding.hooks(), &promise);
            0.0
        }
        Requested::Post(id) if binding.speaks_text() => -(id as f64),
        Requested::Post(id) => id as f64,
    }
}

/// [`wiggum_request`] with the options the class read (`CallOptions`):
/// `bits` (`call_options`), then each a number or a JS value.
#[doc(hidden)]
#[wasm_bindgen(js_name = wiggumRequestWith, skip_typescript)]
#[allow(clippy::too_many_arguments)]
pub fn wiggum_request_with(
    endpoint: u32,
    method: JsValue,
    params: JsValue,
    kind: u32,
    bits: u32,
    timeout: f64,
    window: u32,
    max_total: f64,
    signal: JsValue,
    on_chunk: JsValue,
    on_progress: JsValue,
) -> JsValue {
    let Some(binding) = Binding::numbered(endpoint) else { return JsValue::UNDEFINED };
    let options = CallOptions { timeout: Some(timeout), signal, on_chunk, window, on_progress, bits, max_total };
    match binding.request(method, params, kind, Some(options)) {
        Requested::Promise(promise) => promise.into(),
        // Never with options: the class would have to watch the signal, count the chunks.
        Requested::Post(_) => JsValue::UNDEFINED,
    }
}

/// A notification of endpoint `endpoint` (`method` a string, params with
/// their transfer list): the error to throw, or undefined (0 once the
/// endpoint is destroyed).
#[doc(hidden)]
#[wasm_bindgen(js_name = wiggumNotify, skip_typescript)]
pub fn wiggum_notify(endpoint: u32, method: JsValue, params: JsValue) -> JsValue {
    match Binding::numbered(endpoint) {
        Some(binding) => binding.notify(method, params).err().unwrap_or(JsValue::UNDEFINED),
        None => JsValue::from_f64(0.0),
    }
}

/// The session a client's first message presents to be resumed (a `$/ready`
/// naming one), or undefined: how a server of many clients finds the
/// session a new connection belongs to. `message` may be JSON text.
#[wasm_bindgen(js_name = presentedSession, skip_typescript)]
pub fn presented_session(message: JsValue) -> Option<String> {
    let message = match message.as_string() {
        Some(text) => js_sys::JSON::parse(&text).ok()?,
        None => message,
    };
    crate::core::presented_session(&message)
}
