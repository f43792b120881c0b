//! The WebAssembly layer: the JS API (`JSONRPCClient`, `JSONRPCServer`,
//! `Peer`, the WebSocket and stream transports) over the protocol core. Thin
//! by design: it reads envelopes, calls handlers, and owns every JS resource
//! it creates. The postMessage transports hold no protocol logic and are
//! plain JS (`transport.js`).

mod endpoint;
#[cfg(feature = "framing")]
mod framed;
mod types;
#[cfg(feature = "websocket")]
mod websocket;

#[cfg(test)]
#[path = "../../tests/browser/suite.rs"]
mod browser_suite;

use js_sys::{Function, Reflect};

use crate::prelude::*;
use wasm_bindgen::prelude::*;

use crate::core::{ErrorObject, Kind, Value};

pub use endpoint::{JSONRPCClient, JSONRPCServer, Peer};
#[cfg(feature = "websocket")]
pub use websocket::{web_socket_transport, WebSocketTransportState};

/// The crate's own allocator instead of std's dlmalloc (see the `allocator` feature).
#[cfg(feature = "allocator")]
#[global_allocator]
static ALLOCATOR: crate::heap::Wasm = crate::heap::Wasm::new();

#[wasm_bindgen(module = "/src/wasm/glue.js")]
extern "C" {
    // Re-exported as they are; their types are in `types.rs`.
    #[wasm_bindgen(reexport, skip_typescript, js_name = RPCError)]
    fn export_rpc_error();
    #[wasm_bindgen(reexport, skip_typescript, js_name = Transfer)]
    fn export_transfer_class();
    #[wasm_bindgen(reexport, skip_typescript, js_name = transfer)]
    fn export_transfer();
    #[wasm_bindgen(reexport, skip_typescript, js_name = ErrorCode)]
    fn export_error_code();

    type RPCError;
    #[wasm_bindgen(constructor)]
    fn new(code: f64, message: &str, data: &JsValue) -> RPCError;

    type Transfer;
    #[wasm_bindgen(method, getter)]
    fn value(this: &Transfer) -> JsValue;
    #[wasm_bindgen(method, getter)]
    fn transfer(this: &Transfer) -> JsValue;

    #[wasm_bindgen(js_name = kindOf)]
    fn kind_of(value: &JsValue) -> u8;
    #[wasm_bindgen(js_name = envelopeReader)]
    fn envelope_reader(sink: &Function) -> Function;
    #[wasm_bindgen(js_name = isThenable)]
    fn is_thenable(value: &JsValue) -> bool;
    #[wasm_bindgen(js_name = callController)]
    fn call_controller(handler: &Function) -> JsValue;
    #[wasm_bindgen(js_name = callContext)]
    fn call_context(controller: &JsValue, emit: &JsValue, call: u32) -> JsValue;
    #[wasm_bindgen(js_name = abortCall)]
    fn abort_call(controller: &JsValue, reason: &JsValue);
    #[wasm_bindgen(js_name = awaitOutcome)]
    fn await_outcome(promise: &JsValue, settled: &Function, call: u32);
    #[wasm_bindgen(js_name = errorParts)]
    fn error_parts(thrown: &JsValue) -> JsValue;
    fn encodable(value: &JsValue, as_text: bool) -> bool;
    fn describe(error: &JsValue) -> String;

    #[wasm_bindgen(js_name = requestMessage)]
    fn request_message(method: &JsValue, params: &JsValue, id: f64) -> JsValue;
    #[wasm_bindgen(js_name = notificationMessage)]
    fn notification_message(method: &JsValue, params: &JsValue) -> JsValue;
    #[wasm_bindgen(js_name = resultMessage)]
    fn result_message(id: &JsValue, result: &JsValue) -> JsValue;
    #[wasm_bindgen(js_name = errorMessage)]
    fn error_message(id: &JsValue, code: f64, message: &str, data: &JsValue) -> JsValue;
    #[wasm_bindgen(js_name = paramsKind)]
    fn params_kind(params: &JsValue) -> u8;
    fn deferred() -> JsValue;
    #[wasm_bindgen(js_name = settleCall)]
    fn settle_call(call: &JsValue, ok: bool, value: &JsValue);
}

// The postMessage transports are plain JS (transport.js says why), exported
// as they are; their types are in `types.rs`.
#[wasm_bindgen(module = "/src/wasm/transport.js")]
extern "C" {
    #[wasm_bindgen(reexport, skip_typescript, js_name = windowTransport)]
    fn export_window_transport();
    #[wasm_bindgen(reexport, skip_typescript, js_name = portTransport)]
    fn export_port_transport();
    #[wasm_bindgen(reexport, skip_typescript, js_name = workerTransport)]
    fn export_worker_transport();
    #[wasm_bindgen(reexport, skip_typescript, js_name = selfTransport)]
    fn export_self_transport();
}

#[cfg(feature = "remote")]
#[wasm_bindgen(module = "/src/wasm/remote.js")]
extern "C" {
    #[wasm_bindgen(js_name = remoteProxy)]
    fn remote_proxy(request: &Function) -> JsValue;
    #[wasm_bindgen(js_name = exposedMethods)]
    fn exposed_methods(instance: &JsValue, name: &str) -> js_sys::Array;
}

#[cfg(feature = "streaming")]
#[wasm_bindgen(module = "/src/wasm/streaming.js")]
extern "C" {
    #[wasm_bindgen(js_name = streamCall)]
    fn stream_call(start: &JsValue, options: &JsValue) -> JsValue;
}

/// The jrpc-oo conventions' helpers (websocket.js).
#[cfg(feature = "websocket")]
mod websocket_glue {
    use wasm_bindgen::prelude::*;

    #[wasm_bindgen(module = "/src/wasm/websocket.js")]
    extern "C" {
        #[wasm_bindgen(js_name = argsParams)]
        pub fn args_params(method: &JsValue, params: &JsValue) -> JsValue;
        #[wasm_bindgen(js_name = argsOf)]
        pub fn args_of(params: &JsValue) -> JsValue;
        #[wasm_bindgen(js_name = componentMap)]
        pub fn component_map(names: &js_sys::Array) -> JsValue;
        #[wasm_bindgen(js_name = ignoreRejection)]
        pub fn ignore_rejection(promise: &js_sys::Promise);
    }
}

#[cfg(feature = "introspection")]
#[wasm_bindgen(module = "/src/wasm/introspection.js")]
extern "C" {
    fn introspection() -> JsValue;
}

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(js_namespace = performance, js_name = now)]
    fn performance_now() -> f64;
    #[wasm_bindgen(js_name = setTimeout)]
    fn set_timeout(callback: &Function, ms: f64) -> JsValue;
    #[wasm_bindgen(js_name = clearTimeout)]
    fn clear_timeout(handle: &JsValue);
    #[wasm_bindgen(js_name = queueMicrotask)]
    fn queue_microtask(callback: &Function);
}

/// Interned property names of the envelope: one JS string each, made once,
/// on first use.
mod keys {
    use core::cell::OnceCell;

    use wasm_bindgen::JsValue;

    use crate::prelude::*;

    macro_rules! key {
        ($($name:ident = $text:literal),*) => {
            #[allow(clippy::upper_case_acronyms, non_camel_case_types, dead_code)]
            #[derive(Clone, Copy)]
            pub enum Key { $($name),* }
            pub use Key::*;
            const TEXTS: &[&str] = &[$($text),*];
        };
    }
    key!(
        JSONRPC = "jsonrpc",
        ID = "id",
        METHOD = "method",
        PARAMS = "params",
        RESULT = "result",
        ERROR = "error",
        CODE = "code",
        MESSAGE = "message",
        DATA = "data",
        VERSION = "2.0",
        TIMEOUT = "timeout",
        SIGNAL = "signal",
        TRANSFER = "transfer",
        TEXT = "text",
        PROMISE = "promise",
        INTROSPECTION = "introspection",
        LIST = "list",
        DESCRIBE = "describe",
        RECORD = "record",
        BATCH = "batch",
        BATCHES = "batches",
        CHUNK = "chunk",
        ON_CHUNK = "onChunk",
        DEFAULT_TIMEOUT = "defaultTimeout",
        JRPC_OO = "jrpcOo",
        CONNECTED = "connected"
    );

    #[cfg(target_feature = "atomics")]
    compile_error!("wiggum-rpc's wasm layer is single-threaded: build without the atomics target feature");

    struct Interned(OnceCell<Vec<JsValue>>);
    // SAFETY: without the atomics target feature (checked above) a wasm
    // module runs on one thread, so the cell is never shared between threads.
    unsafe impl Sync for Interned {}
    static INTERNED: Interned = Interned(OnceCell::new());

    impl Key {
        pub fn with<R>(self, f: impl FnOnce(&JsValue) -> R) -> R {
            let texts = INTERNED.0.get_or_init(|| TEXTS.iter().map(|text| JsValue::from_str(text)).collect());
            f(&texts[self as usize])
        }
    }
}

use keys::Key;

fn get(target: &JsValue, key: &Key) -> JsValue {
    key.with(|key| Reflect::get(target, key).unwrap_or(JsValue::UNDEFINED))
}

fn set(target: &JsValue, key: &Key, value: &JsValue) {
    key.with(|key| {
        let _ = Reflect::set(target, key, value);
    });
}

/// A kind as `kindOf` in glue.js numbers it.
fn kind_from_index(index: u32) -> Kind {
    match index {
        0 => Kind::Null,
        1 => Kind::Bool,
        2 => Kind::Number,
        3 => Kind::String,
        4 => Kind::Array,
        5 => Kind::Object,
        _ => Kind::Other,
    }
}

impl Value for JsValue {
    fn kind(&self) -> Kind {
        kind_from_index(kind_of(self).into())
    }

    fn member(&self, name: &str) -> Option<Self> {
        let value = match name {
            "jsonrpc" => get(self, &keys::JSONRPC),
            "id" => get(self, &keys::ID),
            "method" => get(self, &keys::METHOD),
            "params" => get(self, &keys::PARAMS),
            "result" => get(self, &keys::RESULT),
            "error" => get(self, &keys::ERROR),
            "code" => get(self, &keys::CODE),
            "message" => get(self, &keys::MESSAGE),
            "data" => get(self, &keys::DATA),
            other => Reflect::get(self, &JsValue::from_str(other)).unwrap_or(JsValue::UNDEFINED),
        };
        (!value.is_undefined()).then_some(value)
    }

    fn as_text(&self) -> Option<String> {
        self.as_string()
    }

    fn as_number(&self) -> Option<f64> {
        self.as_f64()
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
}

/// An `RPCError` for a call that ended on this side.
fn rpc_error(code: i64, message: &str, data: &JsValue) -> JsValue {
    RPCError::new(code as f64, message, data).into()
}

fn rpc_error_from(error: &ErrorObject<JsValue>) -> JsValue {
    rpc_error(error.code, &error.message, error.data.as_ref().unwrap_or(&JsValue::UNDEFINED))
}

/// What a handler's thrown value becomes on the wire.
fn error_object_from_thrown(thrown: &JsValue) -> ErrorObject<JsValue> {
    let parts = error_parts(thrown);
    let code = get(&parts, &keys::CODE).as_f64().unwrap_or(-32603.0) as i64;
    let message = get(&parts, &keys::MESSAGE).as_string().unwrap_or_default();
    let data = get(&parts, &keys::DATA);
    ErrorObject { code, message, data: (!data.is_undefined()).then_some(data) }
}
