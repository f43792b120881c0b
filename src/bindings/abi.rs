//! The numbers the binding and its JS (`js/module/numbers.js`) share: the
//! events a drain writes and the messages a `Transmit` carries, what `tell`
//! is told, the envelope flags the reader packs, and the bits of `open`. Each is declared in
//! numbers.js as `const NAME = value;`, in this order: the build fails where the
//! two differ.

/// Events: the first word of each; the second is the endpoint's number.
pub mod event {
    /// `[SEND, ep, sent, n, ...messages]`: post them: one message alone (n 0), or a batch of n.
    pub const SEND: f64 = 1.0;
    /// `[INVOKE, ep, call, handler, params]`.
    pub const INVOKE: f64 = 2.0;
    /// `[NOTIFY, ep, handler, params]`.
    pub const NOTIFY: f64 = 3.0;
    /// `[SETTLED, ep, id, waiter, kind, a, b, c, d]` (see `events::settled`).
    pub const SETTLED: f64 = 4.0;
    /// `[PROGRESS, ep, id, waiter, value]`.
    pub const PROGRESS: f64 = 5.0;
    /// `[CHUNK, ep, id, waiter, chunk]`.
    pub const CHUNK: f64 = 6.0;
    /// `[CANCELLED, ep, call]`: the caller cancelled a call this side serves.
    pub const CANCELLED: f64 = 7.0;
    /// `[EXPIRED, ep, call, deadline]`: a call served was answered for
    /// running out of time: its caller's deadline passed (1), or the
    /// asynchronous check of its params took too long (0).
    pub const EXPIRED: f64 = 8.0;
    /// `[MAY_STREAM, ep, call]`.
    pub const MAY_STREAM: f64 = 9.0;
    /// `[WATCH, ep, at, len]`: watch the other side's presence (a Web Lock's name).
    pub const WATCH: f64 = 10.0;
    /// `[SESSION_ENDED, ep]`.
    pub const SESSION_ENDED: f64 = 11.0;
    /// `[FLUSH, ep]`: call `flush` at the end of this turn.
    pub const FLUSH: f64 = 12.0;
    /// `[UNHANDLED, ep, at, len]`: a notification nobody handles (for an observer).
    pub const UNHANDLED: f64 = 13.0;
    /// `[IDLE, ep]`: this side answered every call it served (a transport's `idle()`).
    pub const IDLE: f64 = 14.0;
    /// `[ARM, ep, which, delay]`: arm timer `which` (0 the tick, 1 the deadline).
    pub const ARM: f64 = 15.0;
    /// `[UNDELIVERED, ep, id]`: call `id` failed as the transport reported (for an observer).
    pub const UNDELIVERED: f64 = 16.0;
    /// `[REFERENCE, ep, what, n, value, id, at, len]` (`reference`'s kinds).
    #[cfg_attr(not(feature = "references"), allow(dead_code))]
    pub const REFERENCE: f64 = 17.0;
    /// `[HANDED, ep, sent, received, grace, max_kept, next_call, at, len,
    /// unacked, held]`, then that many sends, each `n` (0: one message,
    /// alone; else a batch of n) and its messages: the session `hand_off`
    /// took out, its id at `at`, `len` bytes.
    #[cfg_attr(not(feature = "handoff"), allow(dead_code))]
    pub const HANDED: f64 = 18.0;
}

/// What a `REFERENCE` event says: `STUBS` (`value` the payload of the event
/// after it, `id` the handle of its `refs`), `INVOKE` (`n` the call, `value`
/// its params, `id` the export, its member at `at`, `len` bytes, or `len`
/// -1), `FREED` (export `id`), `DROPPED`.
#[cfg_attr(not(feature = "references"), allow(dead_code))]
pub mod reference {
    pub const STUBS: f64 = 0.0;
    pub const INVOKE: f64 = 1.0;
    pub const FREED: f64 = 2.0;
    pub const DROPPED: f64 = 3.0;
}

/// The messages of a `SEND` event, each an opcode then its words.
pub mod message {
    /// `[REQUEST, id, method, params]`.
    pub const REQUEST: f64 = 1.0;
    /// `[NOTIFICATION, method, params]`.
    pub const NOTIFICATION: f64 = 2.0;
    /// `[RESULT, id, result]` (id handle 0: null).
    pub const RESULT: f64 = 3.0;
    /// `[ERROR, id, code, at, len, data]`.
    pub const ERROR: f64 = 4.0;
    /// `[CANCEL, id, mcp]`.
    pub const CANCEL: f64 = 5.0;
    /// `[CHUNK, id, chunk]`.
    pub const CHUNK: f64 = 6.0;
    /// `[END, id]`.
    pub const END: f64 = 7.0;
    /// `[CREDIT, id, credit]`.
    pub const CREDIT: f64 = 8.0;
    /// `[PROGRESS, params, mcp]`.
    pub const PROGRESS: f64 = 9.0;
    /// `[READY, ack, batches, split, max_batch, credit, progress, presence (at, len), session...]`.
    pub const READY: f64 = 10.0;
    /// `[ACK, received]`.
    pub const ACK: f64 = 11.0;
    /// `[REFS, refs]`, then the call or result they go beside.
    #[cfg_attr(not(feature = "references"), allow(dead_code))]
    pub const REFS: f64 = 12.0;
    /// `[RELEASE, n, id, count, ...]`: `$/release` of n pairs.
    #[cfg_attr(not(feature = "references"), allow(dead_code))]
    pub const RELEASE: f64 = 13.0;
    /// `[OFFERS]`, then a `READY` whose hello offers references.
    #[cfg_attr(not(feature = "references"), allow(dead_code))]
    pub const OFFERS: f64 = 14.0;
    /// `[KEPT, message]`: a handed session's message, sent as it is.
    #[cfg_attr(not(feature = "handoff"), allow(dead_code))]
    pub const KEPT: f64 = 15.0;
}

/// What `tell` is told (`tell.rs`): `a` and `b` as each says ("handle": a
/// JS value's handle, crossing in `b`).
pub mod tell {
    /// The end of the turn: what the endpoint held back goes.
    pub const FLUSH: u32 = 1;
    /// A timer fired: `a` 0 the tick, 1 the deadline; `b` now.
    pub const TIMER: u32 = 2;
    /// The caller aborted its call `b`.
    pub const CANCEL: u32 = 3;
    /// The handler of call `a` returned the handle `b` (0: `null`), or threw it.
    pub const RESOLVE: u32 = 4;
    pub const REJECT: u32 = 5;
    /// A chunk (handle `b`) from the handler of call `a`: 1 if it may send more now.
    pub const EMIT: u32 = 6;
    /// Progress (handle `b`) of call `a`.
    pub const PROGRESS: u32 = 7;
    /// The caller took `a` more chunks of its call `b`.
    pub const CONSUMED: u32 = 8;
    /// Call `a`'s params failed its schema (the issues: handle `b`); its result did.
    pub const REJECT_PARAMS: u32 = 9;
    pub const REJECT_RESULT: u32 = 10;
    /// Call `a`'s params are being checked (`b` now); they were.
    pub const CHECKING: u32 = 11;
    pub const CHECKED: u32 = 12;
    /// Handler `a` serves the method (the notification) named by the scratch buffer's first `b` bytes.
    pub const SET_METHOD: u32 = 13;
    pub const SET_NOTIFICATION: u32 = 14;
    /// The connection opened again; it dropped (`a` 1: for good; `b` now): 1 if a session goes on.
    pub const OPENED: u32 = 15;
    pub const LOST: u32 = 16;
    /// How many calls of this side's wait; whether call `b` does.
    pub const PENDING: u32 = 17;
    pub const WAITING: u32 = 18;
    /// The session's id at the scratch buffer's address: its length (-1: none).
    pub const SESSION_ID: u32 = 19;
    /// Destroy the endpoint; forget it.
    pub const DESTROY: u32 = 20;
    pub const CLOSE: u32 = 21;
    /// A value read whole (handle `b`, `a` the reader's bits); text refused (`a` why).
    pub const RECEIVE: u32 = 22;
    pub const REFUSED: u32 = 23;
    /// A batch of `a` (`b`: 1 when it came packed) to come member by member (1), or whole (0); its end.
    pub const BATCH: u32 = 24;
    pub const BATCH_END: u32 = 25;
    /// References: their limit (`b`); the `refs` of the next call or result
    /// (handle `b`); `b` of export `a` released; how many are held.
    #[cfg_attr(not(feature = "references"), allow(dead_code))]
    pub const MAX_REFERENCES: u32 = 26;
    #[cfg_attr(not(feature = "references"), allow(dead_code))]
    pub const REFS: u32 = 27;
    #[cfg_attr(not(feature = "references"), allow(dead_code))]
    pub const RELEASE: u32 = 28;
    #[cfg_attr(not(feature = "references"), allow(dead_code))]
    pub const REFERENCES_HELD: u32 = 29;
    /// The metadata (handle `b`) of the message or member handed over next,
    /// and the clock's reading as it arrived (`a`, whole milliseconds).
    pub const META: u32 = 30;
    /// The id (a handle, read at once) the caller gave call `a`, or 0.
    pub const SERVED_ID: u32 = 31;
}

/// The envelope flags the reader packs (`envelopeOf` in abi.js).
pub mod flags {
    /// Bits 0-2: the message's kind (the core's `Kind` order).
    pub const KIND: u32 = 7;
    pub const OBJECT: u32 = 5;
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
}

/// The bits of `open`'s `flags` (`open` in endpoints.js).
pub mod opening {
    /// jrpc-oo's dialect.
    pub const JRPC_OO: u32 = 1;
    /// The transport speaks MCP.
    pub const MCP: u32 = 2;
    /// The transport's `handshake`: `"hold"`, `"announce"`.
    pub const HOLD: u32 = 4;
    pub const ANNOUNCE: u32 = 8;
    pub const EXPOSE_STACK: u32 = 32;
    /// The transport is not connected yet (`connected === false`).
    pub const CONNECTING: u32 = 64;
    /// The transport has `idle()`: the drain says when this side serves nothing.
    pub const IDLE: u32 = 256;
    /// The endpoint offers references (an entry that keeps their objects is installed).
    #[cfg_attr(not(feature = "references"), allow(dead_code))]
    pub const REFERENCES: u32 = 512;
    /// The channel carries structured clones and nothing watches its
    /// messages one by one (no observer): the endpoint may offer packed batches.
    pub const PACKED: u32 = 1024;
    /// The transport's `handshake`: `"await"` (calls wait for the other side's hello).
    pub const AWAIT: u32 = 2048;
}

/// The options bits of `request`.
pub mod call {
    /// `onProgress` given.
    pub const PROGRESS: u32 = 1;
    /// `resetTimeoutOnProgress: false`.
    pub const NO_RESET: u32 = 2;
}

// numbers.js declares each number as this file does, in this order.
#[allow(long_running_const_eval)]
const _: () = {
    let js = include_str!("../../js/module/numbers.js").as_bytes();
    let numbered: &[(&[u8], f64)] = &[
        (b"const E_SEND = ", event::SEND),
        (b"const E_INVOKE = ", event::INVOKE),
        (b"const E_NOTIFY = ", event::NOTIFY),
        (b"const E_SETTLED = ", event::SETTLED),
        (b"const E_PROGRESS = ", event::PROGRESS),
        (b"const E_CHUNK = ", event::CHUNK),
        (b"const E_CANCELLED = ", event::CANCELLED),
        (b"const E_EXPIRED = ", event::EXPIRED),
        (b"const E_MAY_STREAM = ", event::MAY_STREAM),
        (b"const E_WATCH = ", event::WATCH),
        (b"const E_SESSION_ENDED = ", event::SESSION_ENDED),
        (b"const E_FLUSH = ", event::FLUSH),
        (b"const E_UNHANDLED = ", event::UNHANDLED),
        (b"const E_IDLE = ", event::IDLE),
        (b"const E_ARM = ", event::ARM),
        (b"const E_UNDELIVERED = ", event::UNDELIVERED),
        (b"const E_REFERENCE = ", event::REFERENCE),
        (b"const E_HANDED = ", event::HANDED),
        (b"const R_STUBS = ", reference::STUBS),
        (b"const R_INVOKE = ", reference::INVOKE),
        (b"const R_FREED = ", reference::FREED),
        (b"const R_DROPPED = ", reference::DROPPED),
        (b"const M_REQUEST = ", message::REQUEST),
        (b"const M_NOTIFICATION = ", message::NOTIFICATION),
        (b"const M_RESULT = ", message::RESULT),
        (b"const M_ERROR = ", message::ERROR),
        (b"const M_CANCEL = ", message::CANCEL),
        (b"const M_CHUNK = ", message::CHUNK),
        (b"const M_END = ", message::END),
        (b"const M_CREDIT = ", message::CREDIT),
        (b"const M_PROGRESS = ", message::PROGRESS),
        (b"const M_READY = ", message::READY),
        (b"const M_ACK = ", message::ACK),
        (b"const M_REFS = ", message::REFS),
        (b"const M_RELEASE = ", message::RELEASE),
        (b"const M_OFFERS = ", message::OFFERS),
        (b"const M_KEPT = ", message::KEPT),
        (b"const OBJECT = ", flags::OBJECT as f64),
        (b"const VERSION_2 = ", flags::VERSION_2 as f64),
        (b"const ID_SHIFT = ", flags::ID_SHIFT as f64),
        (b"const METHOD = ", flags::METHOD as f64),
        (b"const PARAMS_SHIFT = ", flags::PARAMS_SHIFT as f64),
        (b"const RESULT = ", flags::RESULT as f64),
        (b"const ERROR = ", flags::ERROR as f64),
        (b"const TEXT = ", flags::TEXT as f64),
        (b"const JRPC_OO = ", opening::JRPC_OO as f64),
        (b"const MCP = ", opening::MCP as f64),
        (b"const HOLD = ", opening::HOLD as f64),
        (b"const ANNOUNCE = ", opening::ANNOUNCE as f64),
        (b"const EXPOSE_STACK = ", opening::EXPOSE_STACK as f64),
        (b"const CONNECTING = ", opening::CONNECTING as f64),
        (b"const IDLE = ", opening::IDLE as f64),
        (b"const REFERENCES = ", opening::REFERENCES as f64),
        (b"const PACKED = ", opening::PACKED as f64),
        (b"const AWAIT = ", opening::AWAIT as f64),
        (b"const CALL_PROGRESS = ", call::PROGRESS as f64),
        (b"const CALL_NO_RESET = ", call::NO_RESET as f64),
        (b"const T_FLUSH = ", tell::FLUSH as f64),
        (b"const T_TIMER = ", tell::TIMER as f64),
        (b"const T_CANCEL = ", tell::CANCEL as f64),
        (b"const T_RESOLVE = ", tell::RESOLVE as f64),
        (b"const T_REJECT = ", tell::REJECT as f64),
        (b"const T_EMIT = ", tell::EMIT as f64),
        (b"const T_PROGRESS = ", tell::PROGRESS as f64),
        (b"const T_CONSUMED = ", tell::CONSUMED as f64),
        (b"const T_REJECT_PARAMS = ", tell::REJECT_PARAMS as f64),
        (b"const T_REJECT_RESULT = ", tell::REJECT_RESULT as f64),
        (b"const T_CHECKING = ", tell::CHECKING as f64),
        (b"const T_CHECKED = ", tell::CHECKED as f64),
        (b"const T_SET_METHOD = ", tell::SET_METHOD as f64),
        (b"const T_SET_NOTIFICATION = ", tell::SET_NOTIFICATION as f64),
        (b"const T_OPENED = ", tell::OPENED as f64),
        (b"const T_LOST = ", tell::LOST as f64),
        (b"const T_PENDING = ", tell::PENDING as f64),
        (b"const T_WAITING = ", tell::WAITING as f64),
        (b"const T_SESSION_ID = ", tell::SESSION_ID as f64),
        (b"const T_DESTROY = ", tell::DESTROY as f64),
        (b"const T_CLOSE = ", tell::CLOSE as f64),
        (b"const T_RECEIVE = ", tell::RECEIVE as f64),
        (b"const T_REFUSED = ", tell::REFUSED as f64),
        (b"const T_BATCH = ", tell::BATCH as f64),
        (b"const T_BATCH_END = ", tell::BATCH_END as f64),
        (b"const T_MAX_REFERENCES = ", tell::MAX_REFERENCES as f64),
        (b"const T_REFS = ", tell::REFS as f64),
        (b"const T_RELEASE = ", tell::RELEASE as f64),
        (b"const T_REFERENCES_HELD = ", tell::REFERENCES_HELD as f64),
        (b"const T_META = ", tell::META as f64),
        (b"const T_SERVED_ID = ", tell::SERVED_ID as f64),
    ];
    let (mut at, mut from) = (0, 0);
    while at < numbered.len() {
        let (declaration, value) = numbered[at];
        match super::types::defines(js, declaration, value as u32, from) {
            Some(end) => from = end,
            None => panic!("js/module/numbers.js numbers an event, a message, an envelope flag or an open flag differently from abi.rs"),
        }
        at += 1;
    }
};
