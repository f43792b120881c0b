//! The numbers the per-message path passes instead of names: the envelope
//! flags `envelopeReader` packs and the signals JS gives a binding (glue.js,
//! serving.js and endpoints.js name each the same way: the build checks).

use wasm_bindgen::JsValue;

use crate::core::{Envelope, Id, IdMember, Kind};

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
    /// Handler number `n` serves the method named `value`.
    pub const METHOD: u32 = 8;
    /// Handler number `n` serves the notification named `value`.
    pub const NOTIFICATION: u32 = 9;
    /// The transport's connection (re)opened.
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
    /// The request of call `n` could not be posted: `value` is
    /// `[method, params, what the transport threw]`.
    pub const UNSENT: u32 = 18;
    /// The answer the reader posted for a handler (see `wiggumDone`) could
    /// not go: `n` is the request's envelope flags, `value` `[id, result,
    /// the id's number, what the transport threw]`.
    pub const UNSENT_ANSWER: u32 = 19;
    /// How many of this side's calls wait for an answer: returns it.
    pub const PENDING: u32 = 20;
    /// The id of the session this side is in: returns it, or undefined.
    pub const SESSION: u32 = 21;
    /// `destroy()`.
    pub const DESTROY: u32 = 22;
}

// glue.js numbers the envelope bits and an endpoint's options, serving.js
// the handlers' signals and endpoints.js the classes', as this file does
// (numbers: the per-message path passes them, not names): the build fails
// where they differ.
#[allow(long_running_const_eval)]
const _: () = {
    let glue = include_str!("../../js/module/glue.js").as_bytes();
    let serving = include_str!("../../js/module/serving.js").as_bytes();
    let endpoints = include_str!("../../js/module/endpoints.js").as_bytes();
    numbered_alike(
        glue,
        &[
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
        ],
    );
    numbered_alike(
        glue,
        &[
            (b"const JRPC_OO = ", opening::JRPC_OO),
            (b"const MCP = ", opening::MCP),
            (b"const HOLD = ", opening::HOLD),
            (b"const ANNOUNCE = ", opening::ANNOUNCE),
            (b"const SPEAKS_TEXT = ", opening::SPEAKS_TEXT),
            (b"const EXPOSE_STACK = ", opening::EXPOSE_STACK),
            (b"const CONNECTING = ", opening::CONNECTING),
            (b"const SETTLED = ", opening::SETTLED),
            (b"const IDLE = ", opening::IDLE),
            (b"const TRACED = ", opening::TRACED),
            (b"const PRESENCE = ", opening::PRESENCE),
        ],
    );
    numbered_alike(
        glue,
        &[
            (b"const ABORT = ", signal::ABORT),
            (b"const CLOSED = ", signal::CLOSED),
            (b"const OPENED = ", signal::OPENED),
            (b"const UNDELIVERED = ", signal::UNDELIVERED),
            (b"const CONSUMED = ", signal::CONSUMED),
        ],
    );
    numbered_alike(
        serving,
        &[
            (b"const TICK = ", signal::TICK),
            (b"const DEADLINE = ", signal::DEADLINE),
            (b"const FLUSH = ", signal::FLUSH),
            (b"const RESOLVED = ", signal::RESOLVED),
            (b"const REJECTED = ", signal::REJECTED),
            (b"const CHUNK = ", signal::CHUNK),
            (b"const CHECKING = ", signal::CHECKING),
            (b"const CHECKED = ", signal::CHECKED),
            (b"const INVALID_PARAMS = ", signal::INVALID_PARAMS),
            (b"const INVALID_RESULT = ", signal::INVALID_RESULT),
            (b"const PROGRESS = ", signal::PROGRESS),
            (b"const UNSENT = ", signal::UNSENT),
            (b"const UNSENT_ANSWER = ", signal::UNSENT_ANSWER),
        ],
    );
    numbered_alike(
        endpoints,
        &[
            (b"const METHOD = ", signal::METHOD),
            (b"const NOTIFICATION = ", signal::NOTIFICATION),
            (b"const PENDING = ", signal::PENDING),
            (b"const SESSION = ", signal::SESSION),
            (b"const DESTROY = ", signal::DESTROY),
            (b"const PROGRESS = ", super::binding::call_options::PROGRESS),
            (b"const NO_RESET = ", super::binding::call_options::NO_RESET),
            (b"const TIMEOUT = ", super::binding::call_options::TIMEOUT),
        ],
    );
};

/// Panics (at build time) unless `js` declares each name with its number, in this order.
const fn numbered_alike(js: &[u8], numbered: &[(&[u8], u32)]) {
    let (mut at, mut from) = (0, 0);
    while at < numbered.len() {
        let (declaration, value) = numbered[at];
        match super::types::defines(js, declaration, value, from) {
            Some(end) => from = end,
            None => panic!(
                "glue.js, serving.js or endpoints.js numbers an envelope flag or a handler's signal differently from envelope.rs"
            ),
        }
        at += 1;
    }
}

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

/// What `openOptions` (glue.js) says of an endpoint's options and transport: its first number's bits.
pub mod opening {
    pub const JRPC_OO: u32 = 1;
    /// The transport speaks MCP.
    pub const MCP: u32 = 2;
    /// The transport's `handshake`: `"hold"`, `"announce"`.
    pub const HOLD: u32 = 4;
    pub const ANNOUNCE: u32 = 8;
    /// The transport carries JSON text.
    pub const SPEAKS_TEXT: u32 = 16;
    pub const EXPOSE_STACK: u32 = 32;
    /// The transport is not connected yet (`connected === false`: a WebSocket still connecting).
    pub const CONNECTING: u32 = 64;
    /// The transport has `settled(id)`, `idle()`, a `presence` name.
    pub const SETTLED: u32 = 128;
    pub const IDLE: u32 = 256;
    /// A `trace` option.
    pub const TRACED: u32 = 512;
    pub const PRESENCE: u32 = 1024;
}
