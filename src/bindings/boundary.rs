//! The JS↔wasm boundary in one place: every `extern` block of the
//! bindings (what they import from `js/module/`: glue.js, wire.js,
//! serving.js and extensions.js, one block each; the postMessage
//! transports they re-export; the browser's and Node's few functions), and
//! [`Value`] for `JsValue`. The numbers the per-message path passes are in
//! `envelope`; the names read and made once, in `interned`.

use js_sys::{Function, Reflect};
use wasm_bindgen::prelude::*;

pub use super::envelope::{envelope, flags, id_member, kind_from_index, opening, signal};
pub use super::interned::{keys, names, Key};
use crate::core::{ErrorObject, Kind, Value};
use crate::prelude::*;

#[wasm_bindgen(module = "/js/module/glue.js")]
extern "C" {
    // Re-exported as they are; their types are in `types.rs`.
    #[wasm_bindgen(reexport, skip_typescript, js_name = RPCError)]
    fn export_rpc_error();
    #[wasm_bindgen(reexport, skip_typescript, js_name = ErrorCode)]
    fn export_error_code();

    type RPCError;
    #[wasm_bindgen(constructor)]
    fn new(code: f64, message: &str, data: &JsValue) -> RPCError;

    #[wasm_bindgen(js_name = kindOf)]
    pub fn kind_of(value: &JsValue) -> u8;
    /// A new table of remembered names, for this instance of the module.
    #[wasm_bindgen(js_name = nameTable)]
    pub(super) fn name_table() -> i32;
    /// -2 for anything but a string; the number of a name remembered in `table`; -1.
    #[wasm_bindgen(js_name = nameIndex)]
    pub(super) fn name_index(table: i32, value: &JsValue) -> i32;
    #[wasm_bindgen(js_name = rememberName)]
    pub(super) fn remember_name(table: i32, name: &JsValue, index: f64);
    /// An endpoint's options, read: ten numbers written at `at` (`binding::options`); 1: not a transport.
    #[wasm_bindgen(js_name = openOptions)]
    pub fn open_options(transport: &JsValue, options: &JsValue, memory: &JsValue, at: i32) -> i32;
    /// Subscribes the endpoint (its `hooks`) to its transport: its messages
    /// to a reader (`envelopeReader`), its events to the endpoint. (Numbers
    /// only, no `u32` or `bool`: then no shim stands between; the flags are 0 or 1.)
    #[allow(clippy::too_many_arguments)]
    pub fn listen(
        hooks: &JsValue,
        transport: &JsValue,
        names: i32,
        max_bytes: f64,
        max_depth: f64,
        text_transport: i32,
        traced: i32,
        follows_calls: i32,
    );

    // This side's calls, by id: their records live in the endpoint's `hooks`.
    #[wasm_bindgen(js_name = openCall)]
    pub fn open_call(hooks: &JsValue, id: f64, method: &JsValue, on_chunk: &JsValue, on_progress: &JsValue) -> JsValue;
    /// Opens a call and posts its request: its promise (the endpoint is
    /// told at once if the transport threw: `signal::UNSENT`).
    #[wasm_bindgen(js_name = sendCall)]
    #[allow(clippy::too_many_arguments)]
    pub fn send_call(
        hooks: &JsValue,
        transport: &JsValue,
        text: i32,
        method: &JsValue,
        params: &JsValue,
        id: f64,
        on_chunk: &JsValue,
        on_progress: &JsValue,
    ) -> js_sys::Promise;
    /// The promise of the call `wiggumRequest` made, for its class (`hooks.opened`).
    pub fn opened(hooks: &JsValue, promise: &js_sys::Promise);
    /// Progress of a call of this side's: its `onProgress` hears it.
    pub fn progress(hooks: &JsValue, id: f64, value: &JsValue);
    #[wasm_bindgen(js_name = resolveCall)]
    pub fn resolve_call(hooks: &JsValue, id: f64, result: &JsValue);
    #[wasm_bindgen(js_name = rejectCall)]
    pub fn reject_call(hooks: &JsValue, id: f64, error: &JsValue);
    pub fn fail(hooks: &JsValue, id: f64, code: f64, what: &str, data: &JsValue);
    pub fn chunk(hooks: &JsValue, id: f64, value: &JsValue);
    /// Each chunk of a windowed call counts as taken once its `onChunk` is done (`signal::CONSUMED`).
    #[wasm_bindgen(js_name = countConsumed)]
    pub fn count_consumed(hooks: &JsValue, id: f64);
    /// The caller's abort signal tells the endpoint (`signal::ABORT`).
    #[wasm_bindgen(js_name = watchAbort)]
    pub fn watch_abort(hooks: &JsValue, id: f64, signal: &JsValue);

    /// A thrown error, whole, as plain data (`undefined` if it cannot be read).
    #[wasm_bindgen(js_name = describeError)]
    pub fn describe_error(thrown: &JsValue, with_stack: i32, as_text: i32) -> JsValue;
    #[wasm_bindgen(js_name = receivedError)]
    fn received_error(code: f64, message: &str, data: &JsValue) -> JsValue;
    pub fn encodable(value: &JsValue, as_text: i32) -> i32;
    pub fn describe(error: &JsValue) -> String;
}

// What goes on the wire, built (and posted) as the core decides.
#[wasm_bindgen(module = "/js/module/wire.js")]
extern "C" {
    // Re-exported as they are; their types are in `types.rs`.
    #[wasm_bindgen(reexport, skip_typescript, js_name = Transfer)]
    fn export_transfer_class();
    #[wasm_bindgen(reexport, skip_typescript, js_name = transfer)]
    fn export_transfer();

    #[wasm_bindgen(js_name = requestMessage)]
    pub fn request_message(method: &JsValue, params: &JsValue, id: f64) -> JsValue;
    #[wasm_bindgen(js_name = notificationMessage)]
    pub fn notification_message(method: &JsValue, params: &JsValue) -> JsValue;
    #[wasm_bindgen(js_name = resultMessage)]
    pub fn result_message(id: &JsValue, result: &JsValue) -> JsValue;
    #[wasm_bindgen(js_name = errorMessage)]
    pub fn error_message(id: &JsValue, code: f64, message: &str, data: &JsValue) -> JsValue;
    #[wasm_bindgen(js_name = readyMessage)]
    pub fn ready_message(
        method: &JsValue,
        ack: bool,
        batches: bool,
        split_batch_answers: bool,
        max_batch: f64,
        stream_credit: bool,
        progress: bool,
        presence: Option<&str>,
        session: &JsValue,
    ) -> JsValue;
    /// The `session` member of a `$/ready`: `{ id?, received, resumed?, grace? }`.
    #[wasm_bindgen(js_name = sessionMember)]
    pub fn session_member(id: Option<&str>, received: f64, resumed: JsValue, grace: JsValue) -> JsValue;
    #[wasm_bindgen(js_name = ackMessage)]
    pub fn ack_message(method: &JsValue, received: f64) -> JsValue;
    #[wasm_bindgen(js_name = cancelMessage)]
    pub fn cancel_message(method: &JsValue, member: &JsValue, id: f64) -> JsValue;
    #[wasm_bindgen(js_name = chunkMessage)]
    pub fn chunk_message(method: &JsValue, id: &JsValue, chunk: &JsValue) -> JsValue;
    #[wasm_bindgen(js_name = creditMessage)]
    pub fn credit_message(method: &JsValue, id: f64, credit: f64) -> JsValue;
    #[wasm_bindgen(js_name = streamEndMessage)]
    pub fn stream_end_message(method: &JsValue, id: &JsValue) -> JsValue;
    #[wasm_bindgen(catch)]
    pub fn post(
        transport: &JsValue,
        text: bool,
        message: &JsValue,
        tracer: &JsValue,
        calls: &JsValue,
    ) -> Result<(), JsValue>;
    // The per-message imports take and return only JS values, `f64` and
    // `i32`, and never throw: wasm-bindgen then links the JS function
    // itself, with no shim between (a `bool`, a `u32` argument, a `&str` or
    // a `catch` each add one). `text` is 0 or 1; they return 1 when the
    // transport threw, and `take_send_failure` gives what it threw.
    #[wasm_bindgen(js_name = postRequest)]
    fn post_request_raw(transport: &JsValue, text: i32, method: &JsValue, params: &JsValue, id: f64) -> i32;
    #[wasm_bindgen(js_name = postResult)]
    fn post_result_raw(transport: &JsValue, text: i32, id: &JsValue, result: &JsValue) -> i32;
    #[wasm_bindgen(js_name = takeSendFailure)]
    pub fn take_send_failure() -> JsValue;
    /// Appends a request to a batch being built.
    #[wasm_bindgen(js_name = pushRequest)]
    pub fn push_request(batch: &js_sys::Array, method: &JsValue, params: &JsValue, id: f64);
    /// Appends a success response to a batch being built.
    #[wasm_bindgen(js_name = pushResult)]
    pub fn push_result(batch: &js_sys::Array, id: &JsValue, result: &JsValue);
    /// `{ ...object, [name]: value }`.
    #[wasm_bindgen(js_name = withMember)]
    pub fn with_member(object: &JsValue, name: &str, value: &JsValue) -> JsValue;
}

// The calls this side serves, and the endpoint's JS state (`handlerHooks`).
#[wasm_bindgen(module = "/js/module/serving.js")]
extern "C" {
    /// A handler's result when it returned at once; undefined when it threw
    /// (see `handler_threw`) or settles later.
    #[wasm_bindgen(js_name = invoke)]
    fn invoke_raw(hooks: &JsValue, handler: f64, params: &JsValue, call: f64) -> JsValue;
    /// Runs notification handler number `handler`.
    #[wasm_bindgen(js_name = notifyHandler)]
    pub fn notify_handler(hooks: &JsValue, handler: f64, params: &JsValue);
    /// Keeps a handler in the endpoint's `hooks`, under `key`: its number.
    #[wasm_bindgen(js_name = addHandler)]
    pub fn add_handler(hooks: &JsValue, key: &str, handler: &JsValue) -> f64;
    #[wasm_bindgen(js_name = handlerThrew)]
    fn handler_threw(hooks: &JsValue) -> i32;
    #[wasm_bindgen(js_name = takeThrown)]
    fn take_thrown(hooks: &JsValue) -> JsValue;
    #[wasm_bindgen(js_name = handlerHooks)]
    pub fn handler_hooks(wasm: &JsValue, endpoint: f64, tracer: &JsValue) -> JsValue;
    /// Arms the endpoint's timer `which` (`signal::TICK`, `signal::DEADLINE`), replacing the one armed.
    pub fn arm(hooks: &JsValue, which: i32, delay: f64);
    /// `signal::FLUSH` at the end of this turn.
    #[wasm_bindgen(js_name = flushLater)]
    pub fn flush_later(hooks: &JsValue);
    /// Takes the endpoint's listeners off its transport, clears its timers.
    pub fn detach(hooks: &JsValue);
    #[wasm_bindgen(js_name = abortHandlers)]
    pub fn abort_handlers(hooks: &JsValue, call: &JsValue, reason: &JsValue);
    /// The transport's `sessionend` listeners hear of it once this task's work is done.
    #[wasm_bindgen(js_name = sessionEnded)]
    pub fn session_ended(transport: &JsValue);
    #[wasm_bindgen(js_name = retireHooks)]
    pub fn retire_hooks(hooks: &JsValue);
    /// The handler of `call` may stream again: what its `emit` returned resolves.
    #[wasm_bindgen(js_name = mayStream)]
    pub fn may_stream(hooks: &JsValue, call: f64);
}

// What the capability entries plug into `extensions` (extensions.js).
#[wasm_bindgen(module = "/js/module/extensions.js")]
extern "C" {
    // The slots the capability entries fill when imported (extensions.js); not in
    // the types: nothing but the entries has a use for it.
    #[wasm_bindgen(reexport, skip_typescript, js_name = extensions)]
    fn export_extensions();
    /// An endpoint's tracer around the `trace` option (`wiggum-rpc/trace`;
    /// a TypeError without it).
    pub type Tracer;
    #[wasm_bindgen(catch, js_name = tracer)]
    pub fn tracer(hook: &JsValue) -> Result<Tracer, JsValue>;
    /// This side's call `id` to `method` is going out.
    #[wasm_bindgen(js_name = traceSent)]
    pub fn trace_sent(tracer: &Tracer, id: f64, method: &JsValue);
    /// A message came in; `calls`: which of this side's calls it (or each
    /// member of its batch) answers, as the core read it.
    #[wasm_bindgen(js_name = traceReceived)]
    pub fn trace_received(tracer: &Tracer, message: &JsValue, calls: &JsValue);
    /// A call of this side's ended without an answer (`calls`: the endpoint's hooks).
    #[wasm_bindgen(method)]
    pub fn failed(this: &Tracer, event: &str, id: f64, calls: &JsValue, detail: &JsValue);
    /// Something happened on this side only; `id` is one of this side's calls.
    #[wasm_bindgen(method)]
    pub fn local(this: &Tracer, event: &str, id: &JsValue, method: &JsValue, detail: &JsValue);
}

// The postMessage transports and their base class (on which
// `wiggum-rpc/websocket` builds too) are plain JS (postmessage.js says why),
// exported as they are; their types are in `types.rs`.
#[wasm_bindgen(module = "/js/transports/postmessage.js")]
extern "C" {
    #[wasm_bindgen(reexport, skip_typescript, js_name = Transport)]
    fn export_transport_base();
    #[wasm_bindgen(reexport, skip_typescript, js_name = windowTransport)]
    fn export_window_transport();
    #[wasm_bindgen(reexport, skip_typescript, js_name = portTransport)]
    fn export_port_transport();
    #[wasm_bindgen(reexport, skip_typescript, js_name = workerTransport)]
    fn export_worker_transport();
    #[wasm_bindgen(reexport, skip_typescript, js_name = selfTransport)]
    fn export_self_transport();

    /// The module is instantiated: a bundled worker's own early messages go out again.
    #[wasm_bindgen(js_name = moduleStarted)]
    fn module_started();
}

// The classes users see, JS holding their endpoint's number (the exports
// they call are in `classes`); their types are in `types.rs`.
#[wasm_bindgen(module = "/js/module/endpoints.js")]
extern "C" {
    #[wasm_bindgen(reexport, skip_typescript, js_name = JSONRPCClient)]
    fn export_client();
    #[wasm_bindgen(reexport, skip_typescript, js_name = JSONRPCServer)]
    fn export_server();
    #[wasm_bindgen(reexport, skip_typescript, js_name = Peer)]
    fn export_peer();
    /// The module's exports, for the classes to call.
    fn started(wasm: &JsValue);
}

/// Runs once the module is instantiated: the classes get the module's
/// exports; in a bundled worker, after the .wasm it waited for and before
/// the worker's own code (see `moduleStarted`).
/// wasm-bindgen exports a start function too: under a name of the module's
/// own, out of the types, like the other exports only the module calls.
#[wasm_bindgen(start, js_name = wiggumStart, skip_typescript)]
fn start() {
    started(&wasm_bindgen::exports());
    module_started();
}

/// A pair of Node streams' methods, for the stream transport (`framed`).
#[cfg(feature = "framing")]
#[wasm_bindgen]
extern "C" {
    pub type Stream;
    #[wasm_bindgen(method)]
    pub fn on(this: &Stream, event: &str, listener: &Function);
    #[wasm_bindgen(method)]
    pub fn off(this: &Stream, event: &str, listener: &Function);
    #[wasm_bindgen(method, catch)]
    pub fn write(this: &Stream, chunk: &js_sys::Uint8Array) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(method, catch)]
    pub fn end(this: &Stream) -> Result<JsValue, JsValue>;
}

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(js_namespace = performance, js_name = now)]
    pub fn performance_now() -> f64;
}

pub fn get(target: &JsValue, key: Key) -> JsValue {
    key.with(|key| Reflect::get(target, key).unwrap_or(JsValue::UNDEFINED))
}

/// A member of an options object (`undefined` when there is no object).
pub fn option(options: &JsValue, key: Key) -> JsValue {
    if options.is_object() {
        get(options, key)
    } else {
        JsValue::UNDEFINED
    }
}

impl Value for JsValue {
    fn kind(&self) -> Kind {
        kind_from_index(kind_of(self).into())
    }

    fn member(&self, name: &str) -> Option<Self> {
        let value = match name {
            "jsonrpc" => get(self, keys::JSONRPC),
            "id" => get(self, keys::ID),
            "method" => get(self, keys::METHOD),
            "params" => get(self, keys::PARAMS),
            "result" => get(self, keys::RESULT),
            "error" => get(self, keys::ERROR),
            "code" => get(self, keys::CODE),
            "message" => get(self, keys::MESSAGE),
            "data" => get(self, keys::DATA),
            other => named(self, other),
        };
        (!value.is_undefined()).then_some(value)
    }

    fn as_text(&self) -> Option<String> {
        self.as_string()
    }

    fn as_name(&self) -> Option<String> {
        names::read(self)
    }

    fn as_number(&self) -> Option<f64> {
        self.as_f64()
    }

    fn as_bool(&self) -> Option<bool> {
        JsValue::as_bool(self)
    }

    fn elements(&self) -> Vec<Self> {
        if js_sys::Array::is_array(self) {
            js_sys::Array::from(self).iter().collect()
        } else {
            Vec::new()
        }
    }

    fn is_version_2(&self) -> bool {
        keys::VERSION.with(|version| self == version)
    }

    fn object_of(name: &'static str, value: Self) -> Self {
        let object = js_sys::Object::new();
        let _ = Reflect::set(&object, &JsValue::from_str(name), &value);
        object.into()
    }

    fn empty_array() -> Self {
        js_sys::Array::new().into()
    }

    fn number(value: f64) -> Self {
        JsValue::from_f64(value)
    }

    fn string(text: &'static str) -> Self {
        JsValue::from_str(text)
    }

    fn flags<'a>(names: impl Iterator<Item = &'a str>) -> Self {
        let object = js_sys::Object::new();
        for name in names {
            let _ = Reflect::set(&object, &JsValue::from_str(name), &JsValue::TRUE);
        }
        object.into()
    }

    fn with_member(&self, name: &'static str, value: Self) -> Self {
        match self.is_object() {
            true => with_member(self, name, &value),
            false => self.clone(),
        }
    }
}

/// Builds and posts a request: the transport's error if it threw.
pub fn post_request(
    transport: &JsValue,
    text: bool,
    method: &JsValue,
    params: &JsValue,
    id: f64,
) -> Result<(), JsValue> {
    match post_request_raw(transport, i32::from(text), method, params, id) {
        0 => Ok(()),
        _ => Err(take_send_failure()),
    }
}

/// Builds and posts a success response: the transport's error if it threw.
pub fn post_result(transport: &JsValue, text: bool, id: &JsValue, result: &JsValue) -> Result<(), JsValue> {
    match post_result_raw(transport, i32::from(text), id, result) {
        0 => Ok(()),
        _ => Err(take_send_failure()),
    }
}

/// How a handler's call went: its result at once, what it threw, or `None`
/// when it settles later (through the hooks' `signal`).
pub fn invoke(hooks: &JsValue, handler: u32, params: &JsValue, call: u32) -> Option<Result<JsValue, JsValue>> {
    let result = invoke_raw(hooks, f64::from(handler), params, f64::from(call));
    if !result.is_undefined() {
        return Some(Ok(result));
    }
    (handler_threw(hooks) != 0).then(|| Err(take_thrown(hooks)))
}

/// An `RPCError` for a call that ended on this side.
pub fn rpc_error(code: i64, message: &str, data: &JsValue) -> JsValue {
    RPCError::new(code as f64, message, data).into()
}

/// The `RPCError` a call rejects with (a whole error's cause and fields on it).
pub fn rpc_error_from(error: &ErrorObject<JsValue>) -> JsValue {
    received_error(error.code as f64, &error.message, error.data.as_ref().unwrap_or(&JsValue::UNDEFINED))
}

pub fn type_error(message: &str) -> JsValue {
    js_sys::TypeError::new(message).into()
}

/// `target[name]`, by a name not worth interning (see `keys`).
pub fn named(target: &JsValue, name: &str) -> JsValue {
    Reflect::get(target, &JsValue::from_str(name)).unwrap_or(JsValue::UNDEFINED)
}

/// `target[name]`, if it is a function.
pub fn method(target: &JsValue, name: &str) -> Option<Function> {
    named(target, name).dyn_into().ok()
}

/// Joins text without pulling `core::fmt` into the wasm build.
pub fn concat(parts: &[&str]) -> String {
    let mut text = String::with_capacity(parts.iter().map(|p| p.len()).sum());
    parts.iter().for_each(|part| text.push_str(part));
    text
}
