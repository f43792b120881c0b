//! The JS↔wasm boundary in one place: every `extern` block of the
//! bindings (what they import from `js/module/glue.js`, the postMessage
//! transports they re-export, the browser's and Node's few functions), the
//! envelope flags `envelopeReader` packs (the same bits are named there),
//! the interned property names, and [`Value`] for `JsValue`.

use js_sys::{Function, Reflect};
use wasm_bindgen::prelude::*;

use crate::core::{Envelope, ErrorObject, Id, IdMember, Kind, Value};
use crate::prelude::*;

#[wasm_bindgen(module = "/js/module/glue.js")]
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
    // The slots the capability entries fill when imported (glue.js); not in
    // the types: nothing but the entries has a use for it.
    #[wasm_bindgen(reexport, skip_typescript, js_name = extensions)]
    fn export_extensions();

    type RPCError;
    #[wasm_bindgen(constructor)]
    fn new(code: f64, message: &str, data: &JsValue) -> RPCError;

    #[wasm_bindgen(js_name = transfer)]
    pub fn transfer_marker(value: &JsValue, list: &JsValue) -> JsValue;

    #[wasm_bindgen(js_name = kindOf)]
    pub fn kind_of(value: &JsValue) -> u8;
    /// A new table of remembered names, for this instance of the module.
    #[wasm_bindgen(js_name = nameTable)]
    fn name_table() -> u32;
    /// -2 for anything but a string; the number of a name remembered in `table`; -1.
    #[wasm_bindgen(js_name = nameIndex)]
    fn name_index(table: u32, value: &JsValue) -> i32;
    #[wasm_bindgen(js_name = rememberName)]
    fn remember_name(table: u32, name: &JsValue, index: f64);
    /// A request's method and params at once: `request_shape` bits.
    #[wasm_bindgen(js_name = requestShape)]
    pub fn request_shape(method: &JsValue, params: &JsValue) -> i32;
    #[wasm_bindgen(js_name = envelopeReader)]
    #[allow(clippy::too_many_arguments)]
    pub fn envelope_reader(
        wasm: &JsValue,
        endpoint: f64,
        hooks: &JsValue,
        transport: &JsValue,
        names: u32,
        max_bytes: f64,
        max_depth: f64,
        text_transport: bool,
        traced: bool,
    ) -> Function;

    // This side's calls, by id: their records live in the endpoint's `hooks`.
    #[wasm_bindgen(js_name = openCall)]
    pub fn open_call(hooks: &JsValue, id: f64, method: &JsValue, on_chunk: &JsValue, on_progress: &JsValue) -> JsValue;
    /// Opens a call and posts its request: its promise, or `None` when the
    /// transport threw (`take_send_failure`, `promise_of`).
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
    ) -> Option<js_sys::Promise>;
    #[wasm_bindgen(js_name = promiseOf)]
    pub fn promise_of(hooks: &JsValue, id: f64) -> js_sys::Promise;
    /// Progress of a call of this side's: its `onProgress` hears it.
    pub fn progress(hooks: &JsValue, id: f64, value: &JsValue);
    /// `{ ...object, [name]: value }`.
    #[wasm_bindgen(js_name = withMember)]
    pub fn with_member(object: &JsValue, name: &str, value: &JsValue) -> JsValue;
    #[wasm_bindgen(js_name = resolveCall)]
    pub fn resolve_call(hooks: &JsValue, id: f64, result: &JsValue);
    #[wasm_bindgen(js_name = rejectCall)]
    pub fn reject_call(hooks: &JsValue, id: f64, error: &JsValue);
    pub fn fail(hooks: &JsValue, id: f64, code: f64, what: &str, data: &JsValue);
    pub fn chunk(hooks: &JsValue, id: f64, value: &JsValue);
    /// Each chunk of a windowed call counts as taken once its `onChunk` is done: `consumed(id)`.
    #[wasm_bindgen(js_name = countConsumed)]
    pub fn count_consumed(hooks: &JsValue, id: f64, consumed: &Function);
    #[wasm_bindgen(js_name = watchAbort)]
    pub fn watch_abort(hooks: &JsValue, id: f64, signal: &JsValue, on_abort: &Function);

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
    /// A listener that hands its event's detail to `signal(what, 0, detail)`.
    #[wasm_bindgen(js_name = eventSignalling)]
    pub fn event_signalling(signal: &Function, what: u32) -> Function;
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
    pub fn handler_hooks(signal: &Function, tracer: &JsValue) -> JsValue;
    pub fn signalling(signal: &Function, what: u32) -> Function;
    #[wasm_bindgen(js_name = abortHandlers)]
    pub fn abort_handlers(hooks: &JsValue, call: &JsValue, reason: &JsValue);
    /// A thrown error, whole, as plain data (`undefined` if it cannot be read).
    #[wasm_bindgen(js_name = describeError)]
    pub fn describe_error(thrown: &JsValue, with_stack: bool, as_text: bool) -> JsValue;
    #[wasm_bindgen(js_name = receivedError)]
    fn received_error(code: f64, message: &str, data: &JsValue) -> JsValue;
    #[wasm_bindgen(js_name = emitLater)]
    pub fn emit_later(transport: &JsValue, event: &str);
    #[wasm_bindgen(js_name = retireHooks)]
    pub fn retire_hooks(hooks: &JsValue);
    /// The handler of `call` may stream again: what its `emit` returned resolves.
    #[wasm_bindgen(js_name = mayStream)]
    pub fn may_stream(hooks: &JsValue, call: f64);
    pub fn encodable(value: &JsValue, as_text: bool) -> bool;
    pub fn describe(error: &JsValue) -> String;
}

// What the capability entries plug into glue.js's `extensions`.
#[wasm_bindgen(module = "/js/module/glue.js")]
extern "C" {
    /// A server's introspection catalog, or undefined without `wiggum-rpc/introspection`.
    pub fn introspection(options: &JsValue) -> JsValue;
    #[wasm_bindgen(js_name = componentMap)]
    pub fn component_map(names: &js_sys::Array) -> JsValue;
    #[wasm_bindgen(js_name = ignoreRejection)]
    pub fn ignore_rejection(promise: &js_sys::Promise);

    /// The handler to register: `handler` itself, or one that checks the
    /// schemas `info` names (`wiggum-rpc/contracts`; a TypeError without it).
    #[wasm_bindgen(catch)]
    pub fn contracted(
        name: &str,
        handler: &JsValue,
        info: &JsValue,
        notification: bool,
        hooks: &JsValue,
    ) -> Result<JsValue, JsValue>;

    /// An endpoint's tracer around the `trace` option (`wiggum-rpc/trace`;
    /// a TypeError without it).
    pub type Tracer;
    #[wasm_bindgen(catch, js_name = tracer)]
    pub fn tracer(hook: &JsValue) -> Result<Tracer, JsValue>;
    /// This side's call `id` to `method` is going out.
    #[wasm_bindgen(method)]
    pub fn sent(this: &Tracer, id: f64, method: &JsValue);
    /// A message came in; `calls`: which of this side's calls it (or each
    /// member of its batch) answers, as the core read it.
    #[wasm_bindgen(method)]
    pub fn received(this: &Tracer, message: &JsValue, calls: &JsValue);
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

/// Runs once the module is instantiated: in a bundled worker, after the
/// .wasm it waited for and before the worker's own code (see `moduleStarted`).
/// wasm-bindgen exports a start function too: under a name of the module's
/// own, out of the types, like the other exports only the module calls.
#[wasm_bindgen(start, js_name = wiggumStart, skip_typescript)]
fn start() {
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
    /// A caller's `signal` option (read only when it is an object).
    pub type AbortSignal;
    #[wasm_bindgen(method, getter)]
    pub fn aborted(this: &AbortSignal) -> bool;
    #[wasm_bindgen(method, getter)]
    pub fn reason(this: &AbortSignal) -> JsValue;

    #[wasm_bindgen(js_namespace = performance, js_name = now)]
    pub fn performance_now() -> f64;
    #[wasm_bindgen(js_name = setTimeout)]
    pub fn set_timeout(callback: &Function, ms: f64) -> JsValue;
    #[wasm_bindgen(js_name = clearTimeout)]
    pub fn clear_timeout(handle: &JsValue);
    #[wasm_bindgen(js_name = queueMicrotask)]
    pub fn queue_microtask(callback: &Function);
}

/// The bits of `flags` as `envelopeReader` (glue.js) packs them.
pub mod flags {
    /// Bits 0-2: the message's kind (a `Kind` index), or [`PARSE_FAILED`].
    pub const KIND: u32 = 7;
    /// The kind of a number (an id of that kind is read in the same crossing).
    pub const NUMBER: u32 = 2;
    /// The kind of a message object: its envelope comes read.
    pub const OBJECT: u32 = 5;
    /// The kind of a batch.
    pub const ARRAY: u32 = 4;
    pub const PARSE_FAILED: u32 = 7;
    pub const VERSION_2: u32 = 1 << 3;
    /// Bits 4-6: the id's kind + 1 (0: absent).
    pub const ID_SHIFT: u32 = 4;
    pub const METHOD: u32 = 1 << 7;
    /// Bits 8-10: the params' kind + 1 (0: absent).
    pub const PARAMS_SHIFT: u32 = 8;
    pub const RESULT: u32 = 1 << 11;
    pub const ERROR: u32 = 1 << 12;
    /// It came as JSON text.
    pub const TEXT: u32 = 1 << 13;
    /// With [`PARSE_FAILED`]: the text was not parsed, being larger than the limit.
    pub const TOO_LARGE: u32 = 1 << 14;
    /// With [`PARSE_FAILED`]: the text was not parsed, being nested deeper than the limit.
    pub const TOO_DEEP: u32 = 1 << 15;
    /// With [`PARSE_FAILED`]: a text transport delivered bytes (a WebSocket's binary frame).
    pub const NOT_TEXT: u32 = 1 << 16;
    /// A member of the batch the endpoint asked to be read (kind and envelope as for a message).
    pub const MEMBER: u32 = 1 << 17;
    /// The batch's members have all been read.
    pub const MEMBERS_END: u32 = 1 << 18;
}

/// What JS tells a binding through its one callback, `signal(what, n, value)`:
/// one closure per endpoint instead of one per kind of event.
pub mod signal {
    /// The clock tick fired.
    pub const TICK: u32 = 0;
    /// The deadline timer fired.
    pub const DEADLINE: u32 = 1;
    /// The end of the turn (a microtask).
    pub const FLUSH: u32 = 2;
    /// The caller aborted call `n` (its id).
    pub const ABORT: u32 = 3;
    /// Handler `n` resolved with `value`.
    pub const RESOLVED: u32 = 4;
    /// Handler `n` threw or rejected with `value`.
    pub const REJECTED: u32 = 5;
    /// Handler `n` emitted the chunk `value`.
    pub const CHUNK: u32 = 6;
    /// The transport's connection closed.
    pub const CLOSED: u32 = 7;
    /// jrpc-oo's `system.listComponents` was called: returns this side's methods.
    pub const COMPONENTS: u32 = 8;
    /// jrpc-oo: the end of the turn in which the methods changed.
    pub const ANNOUNCE: u32 = 9;
    /// jrpc-oo: the transport's connection (re)opened.
    pub const OPENED: u32 = 10;
    /// Call `n`'s params are being checked by an asynchronous schema.
    pub const CHECKING: u32 = 11;
    /// Call `n`'s asynchronous check is over; its handler runs.
    pub const CHECKED: u32 = 12;
    /// Call `n`'s params failed its schema; `value` is the issues.
    pub const INVALID_PARAMS: u32 = 13;
    /// The transport got no response to calls it carried; `value` says
    /// which and why (its `undelivered` event).
    pub const UNDELIVERED: u32 = 15;
    /// Call `n`'s result failed its schema.
    pub const INVALID_RESULT: u32 = 14;
    /// The caller took one more chunk of its call `n` (a windowed stream).
    pub const CONSUMED: u32 = 16;
    /// Handler `n` reported the progress `value`.
    pub const PROGRESS: u32 = 17;
}

// glue.js numbers the envelope bits and the handlers' signals as this file
// does (numbers: the per-message path passes them, not names): the build
// fails where they differ.
#[allow(long_running_const_eval)]
const _: () = {
    use super::types::defines;
    let glue = include_str!("../../js/module/glue.js").as_bytes();
    let numbered: [(&[u8], u32); 24] = [
        (b"const NUMBER = ", flags::NUMBER),
        (b"const ARRAY = ", flags::ARRAY),
        (b"const OBJECT = ", flags::OBJECT),
        (b"const PARSE_FAILED = ", flags::PARSE_FAILED),
        (b"const VERSION_2 = ", flags::VERSION_2),
        (b"const ID_SHIFT = ", flags::ID_SHIFT),
        (b"const METHOD = ", flags::METHOD),
        (b"const PARAMS_SHIFT = ", flags::PARAMS_SHIFT),
        (b"const RESULT = ", flags::RESULT),
        (b"const ERROR = ", flags::ERROR),
        (b"const TEXT = ", flags::TEXT),
        (b"const TOO_LARGE = ", flags::TOO_LARGE),
        (b"const TOO_DEEP = ", flags::TOO_DEEP),
        (b"const NOT_TEXT = ", flags::NOT_TEXT),
        (b"const MEMBER = ", flags::MEMBER),
        (b"const MEMBERS_END = ", flags::MEMBERS_END),
        (b"const RESOLVED = ", signal::RESOLVED),
        (b"const REJECTED = ", signal::REJECTED),
        (b"const CHUNK = ", signal::CHUNK),
        (b"const CHECKING = ", signal::CHECKING),
        (b"const CHECKED = ", signal::CHECKED),
        (b"const INVALID_PARAMS = ", signal::INVALID_PARAMS),
        (b"const INVALID_RESULT = ", signal::INVALID_RESULT),
        (b"const PROGRESS = ", signal::PROGRESS),
    ];
    // In the order glue.js declares them.
    let (mut at, mut from) = (0, 0);
    while at < numbered.len() {
        let (declaration, value) = numbered[at];
        match defines(glue, declaration, value, from) {
            Some(end) => from = end,
            None => panic!("glue.js numbers an envelope flag or a handler's signal differently from boundary.rs"),
        }
        at += 1;
    }
};

/// A kind as `kindOf` in glue.js numbers it.
pub fn kind_from_index(index: u32) -> Kind {
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

/// The envelope of a message object from its flags and members;
/// `id_number` is the id when it is a number (read in the same crossing, so
/// the id rule asks nothing more of JS).
pub fn envelope(flags: u32, [id, method, params, result, error]: [JsValue; 5], id_number: f64) -> Envelope<JsValue> {
    let with_kind = |value: JsValue, shift: u32| {
        let bits = (flags >> shift) & 7;
        (bits != 0).then(|| (value, kind_from_index(bits - 1)))
    };
    Envelope {
        version_2: flags & flags::VERSION_2 != 0,
        id: id_member(flags, id, id_number),
        method: (flags & flags::METHOD != 0).then_some(method),
        params: with_kind(params, flags::PARAMS_SHIFT),
        result: (flags & flags::RESULT != 0).then_some(result),
        error: (flags & flags::ERROR != 0).then_some(error),
    }
}

/// A message's id from its flags (`id_number`: its value when it is a number).
pub fn id_member(flags: u32, id: JsValue, id_number: f64) -> IdMember<JsValue> {
    match (flags >> flags::ID_SHIFT) & 7 {
        0 => IdMember::Absent,
        bits => match kind_from_index(bits - 1) {
            Kind::Number => Id::number(id, id_number).into(),
            kind => Id::read(id, kind).into(),
        },
    }
}

/// The bits of `requestShape` (glue.js).
pub mod request_shape {
    pub const METHOD_IS_STRING: i32 = 1;
    /// Bits 1-3: the params' kind + 1 (0: no params).
    pub const PARAMS_SHIFT: i32 = 1;
}

/// Method names read from JS, remembered: every request carries its
/// method's name, and copying a string's text out of JS costs wasm-bindgen's
/// string shim, an allocation call and a copy each time. glue.js maps each
/// remembered string to its number (`nameIndex`); this holds the texts by
/// number. At most `MOST` names of at most `LONGEST` bytes are remembered (a
/// peer that makes up names fills it once, and the rest are read each time).
pub mod names {
    use core::cell::{Cell, OnceCell, RefCell};

    use wasm_bindgen::JsValue;

    use crate::prelude::*;

    const MOST: usize = 512;
    const LONGEST: usize = 64;

    /// The texts by number, the number of this instance's table in glue.js,
    /// and what the reader found of the method being read (see [`expect`]).
    struct Names(RefCell<Vec<String>>, OnceCell<u32>, Cell<i32>);
    // SAFETY: one thread (see `keys`).
    unsafe impl Sync for Names {}
    static NAMES: Names = Names(RefCell::new(Vec::new()), OnceCell::new(), Cell::new(NOT_LOOKED_UP));

    /// No method name was looked up by the reader.
    const NOT_LOOKED_UP: i32 = -3;

    /// The number of this instance's table of names in glue.js.
    pub fn table() -> u32 {
        *NAMES.1.get_or_init(super::name_table)
    }

    /// The reader looked the method up as `nameIndex` would (-2: not a
    /// string; -1: not remembered; else its number): the next name read, the
    /// core's read of that method (it reads no other name), asks JS nothing.
    /// `None`: forget it (the message is done with).
    pub fn expect(index: Option<i32>) {
        NAMES.2.set(index.unwrap_or(NOT_LOOKED_UP));
    }

    pub fn read(value: &JsValue) -> Option<String> {
        let table = table();
        let index = match NAMES.2.replace(NOT_LOOKED_UP) {
            NOT_LOOKED_UP => super::name_index(table, value),
            known => known,
        };
        if index == -2 {
            return None;
        }
        let mut names = NAMES.0.try_borrow_mut().ok();
        if let Some(name) = names.as_ref().and_then(|names| names.get(usize::try_from(index).ok()?)) {
            return Some(name.clone());
        }
        let text = value.as_string()?;
        if let Some(names) = names.as_mut().filter(|names| names.len() < MOST && text.len() <= LONGEST) {
            super::remember_name(table, value, names.len() as f64);
            names.push(text.clone());
        }
        Some(text)
    }
}

/// Interned property names: one JS string each, made once, on first use.
pub mod keys {
    use core::cell::OnceCell;

    use wasm_bindgen::JsValue;

    use crate::prelude::*;

    macro_rules! key {
        ($($name:ident = $text:expr),*) => {
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
        HANDSHAKE = "handshake",
        INTROSPECTION = "introspection",
        LIST = "list",
        DESCRIBE = "describe",
        DISCOVER = "discover",
        OPENRPC = "openrpc",
        RECORD = "record",
        BATCH = "batch",
        BATCHES = "batches",
        ON_CHUNK = "onChunk",
        WINDOW = "window",
        ON_PROGRESS = "onProgress",
        RESET_ON_PROGRESS = "resetTimeoutOnProgress",
        MAX_TOTAL_TIMEOUT = "maxTotalTimeout",
        DEFAULT_TIMEOUT = "defaultTimeout",
        JRPC_OO = "jrpcOo",
        CONNECTED = "connected",
        DIALECT = "dialect",
        TRACE = "trace",
        // The methods of the extensions, as the core names them.
        READY_METHOD = crate::core::READY,
        CANCEL_METHOD = crate::core::CANCEL_REQUEST,
        MCP_CANCEL_METHOD = crate::core::MCP_CANCELLED,
        CHUNK_METHOD = crate::core::STREAM_CHUNK,
        END_METHOD = crate::core::STREAM_END,
        CREDIT_METHOD = crate::core::STREAM_CREDIT,
        ACK_METHOD = crate::core::SESSION_ACK,
        PROGRESS_METHOD = crate::core::PROGRESS,
        MCP_PROGRESS_METHOD = crate::core::MCP_PROGRESS,
        CANCEL_ID = crate::core::Cancellation::Lsp.id_member(),
        MCP_CANCEL_ID = crate::core::Cancellation::Mcp.id_member()
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

pub use keys::Key;

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

/// Hands a callback to JS for good: the JS function owns it from now on.
pub fn js_function<F: ?Sized + wasm_bindgen::closure::WasmClosure>(closure: Closure<F>) -> Function {
    closure.into_js_value().unchecked_into()
}

/// A listener that removes itself when dropped, as gloo's `EventListener`
/// does: it holds the function that takes it off again.
pub struct Listening(Option<Function>);

impl Listening {
    /// `handler` added with `target.onMessage`, taken off with `target.offMessage` (if it has one).
    pub fn on_message(target: &JsValue, handler: &Function) -> Result<Listening, JsValue> {
        method(target, "onMessage").ok_or_else(|| type_error("transport has no onMessage"))?.call1(target, handler)?;
        let off = method(target, "offMessage").map(|off| off.bind1(target, handler).unchecked_into());
        Ok(Listening(off))
    }

    /// A listener added by `target.on(event, listener)` (see `Binding::on`),
    /// with the function that call returned to remove it.
    pub fn removed_by(remove: JsValue) -> Listening {
        Listening(remove.dyn_into().ok())
    }
}

impl Drop for Listening {
    fn drop(&mut self) {
        if let Some(remove) = &self.0 {
            let _ = remove.call0(&JsValue::UNDEFINED);
        }
    }
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
