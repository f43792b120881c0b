//! What an endpoint puts on the wire: each message it may send, as the
//! protocol names it, and the capabilities two endpoints tell each other in
//! the `$/ready` handshake. A host turns these into its own values (JS
//! objects, `serde_json` values); which one is sent, and when, is decided by
//! the endpoint alone.

use crate::prelude::*;

use super::message::{Id, Response};
use super::value::{bool_of, number_of, text_of, Value};

/// The LSP's cancellation notification: `{"id": <the request's id>}`.
pub const CANCEL_REQUEST: &str = "$/cancelRequest";

/// MCP's cancellation notification: `{"requestId": <the request's id>, "reason"?: …}`.
pub const MCP_CANCELLED: &str = "notifications/cancelled";

/// Which notification cancels a request, both ways: the LSP's (the
/// default) or MCP's, which an MCP server expects instead.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Cancellation {
    #[default]
    Lsp,
    Mcp,
}

impl Cancellation {
    /// The notification's method.
    pub fn method(self) -> &'static str {
        match self {
            Cancellation::Lsp => CANCEL_REQUEST,
            Cancellation::Mcp => MCP_CANCELLED,
        }
    }

    /// The member of its params that names the request.
    pub const fn id_member(self) -> &'static str {
        match self {
            Cancellation::Lsp => "id",
            Cancellation::Mcp => "requestId",
        }
    }
}

/// Streaming (the json-ws convention): `{"id": <request id>, "chunk": …}`,
/// sent by a server while it works on that request, before its response.
pub const STREAM_CHUNK: &str = "stream.chunk";
/// `{"id": <request id>}`: no more chunks for that request.
pub const STREAM_END: &str = "stream.end";
/// Flow control of a stream, between endpoints whose hellos offered it
/// (`streamCredit`): `{"id": <request id>, "credit": n}` from the caller lets
/// the handler send `n` more chunks. A call that never got one streams freely.
pub const STREAM_CREDIT: &str = "stream.credit";
/// The most credit one `stream.credit` grants; more says this much.
pub const MAX_CREDIT: u32 = 1 << 20;

/// Progress of a call, from the handler to its caller, between endpoints
/// whose hellos offered it (`progress`): `{"id": <request id>, "value": …}`.
/// It may keep the call from timing out (see [`crate::core::Endpoint::request_with`]).
pub const PROGRESS: &str = "$/progress";
/// MCP's progress: `{"progressToken": …, "progress": n, "total"?: n,
/// "message"?: …}`, for a request whose params' `_meta` held the token.
pub const MCP_PROGRESS: &str = "notifications/progress";

/// The params of a progress report: `{"id": token, "value": value}`; in
/// MCP's convention `{"progressToken": token, "progress": value}` for a
/// number, or the `progress`, `total` and `message` of an object.
pub fn progress_params<V: Value>(token: V, value: V, mcp: bool) -> V {
    if !mcp {
        return V::object_of("id", token).with_member("value", value);
    }
    let params = V::object_of("progressToken", token);
    if value.kind() != super::value::Kind::Object {
        return params.with_member("progress", value);
    }
    ["progress", "total", "message"].into_iter().fold(params, |params, name| match value.member(name) {
        Some(field) => params.with_member(name, field),
        None => params,
    })
}

/// The start-up handshake: `{"ack": false, …capabilities}` says hello and
/// asks for an answer; `{"ack": true, …capabilities}` is the answer.
pub const READY: &str = "$/ready";

/// Within a resumable session: `{"received": n}`, the count of the session's
/// messages this side has received, so the other side may forget them.
pub const SESSION_ACK: &str = "$/ack";

/// The holder of references dropped stubs: `{"refs": [[id, count], …]}`,
/// counts of introductions, so that a release crossing a re-send of the same
/// id frees nothing still held.
#[cfg(feature = "references")]
pub const RELEASE: &str = "$/release";

/// A call to a reference: `$/ref/<id>` calls export `id` of the side that
/// receives it, `$/ref/<id>.<member>` its member.
#[cfg(feature = "references")]
pub const REFERENCE: &str = "$/ref/";

/// One JSON-RPC message from this side.
#[derive(Clone, Debug, PartialEq)]
pub enum Message<V> {
    /// A call of this side's: `id` is one it allocated.
    Request {
        id: u64,
        method: V,
        params: Option<V>,
        /// Its metadata ([`META`]): dropped toward a peer that did not offer it.
        meta: Option<V>,
        /// `[[id, path], …]`: where `params` holds references.
        #[cfg(feature = "references")]
        refs: Option<V>,
    },
    Notification {
        method: V,
        params: Option<V>,
        #[cfg(feature = "references")]
        refs: Option<V>,
    },
    Response(Response<V>),
    /// The cancellation notification (`$/cancelRequest`, or MCP's) of one
    /// of this side's calls.
    Cancel {
        id: u64,
        convention: Cancellation,
    },
    /// `stream.chunk` of the request `id` (the caller's id, echoed).
    Chunk {
        id: Id<V>,
        chunk: V,
    },
    /// `stream.end` of the request `id`.
    StreamEnd {
        id: Id<V>,
    },
    /// `stream.credit` for this side's call `id`: its handler may send
    /// `credit` more chunks.
    Credit {
        id: u64,
        credit: u32,
    },
    /// Progress of a call this side serves: `$/progress` `{"id", "value"}`,
    /// or (`mcp`) MCP's `notifications/progress`, with its params made (see
    /// [`progress_params`]).
    Progress {
        params: V,
        mcp: bool,
    },
    /// `$/ready`: hello (`ack: false`) or its answer.
    Ready {
        ack: bool,
        capabilities: Capabilities,
        /// A name by which the host on the other side can tell when this
        /// side has gone (a Web Lock this side holds while it lives).
        presence: Option<String>,
        /// A resumable session asked for, resumed or granted.
        session: Option<SessionHello>,
    },
    /// `$/ack`: this side has received `received` of the session's messages.
    Ack {
        received: u64,
    },
    /// `$/release`: this side dropped `count` stubs of each `(id, count)`.
    #[cfg(feature = "references")]
    Release {
        refs: Vec<(u32, u32)>,
    },
    /// A message another endpoint made and kept for its session, taken over
    /// as it went on the wire (a handed session's `unacked` and `held`):
    /// sent again as it is, never read.
    #[cfg(feature = "handoff")]
    Kept(V),
}

/// The `session` member of a `$/ready`. In a hello, `{"received": n}` asks
/// for a session and `{"id": …, "received": n}` asks to resume one; in the
/// answer, `{"id": …, "received": n, "resumed": bool, "grace": ms}` says which
/// session this connection carries now (`id` absent: none). `received`
/// counts the session's messages the sender has received, so the other side
/// sends again what came after.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SessionHello {
    pub id: Option<String>,
    pub received: u64,
    /// Answer only: the session presented goes on (false: a new one, or none).
    pub resumed: Option<bool>,
    /// Answer only: how long the server keeps a session whose connection dropped.
    pub grace_ms: Option<u64>,
}

/// The session a client's hello presents to be resumed, if `message` is one
/// (a `$/ready` that is not an answer): how a server that holds many
/// sessions finds the endpoint a new connection belongs to.
pub fn presented_session<V: Value>(message: &V) -> Option<String> {
    if message.kind() != super::value::Kind::Object || text_of(Some(message), "method")? != READY {
        return None;
    }
    let params = message.member("params");
    if bool_of(params.as_ref(), "ack") == Some(true) {
        return None;
    }
    SessionHello::read(params.as_ref())?.id
}

/// The longest session id a hello may carry; a longer one says nothing.
pub const MAX_SESSION_ID: usize = 200;

impl SessionHello {
    /// The `session` member of a `$/ready` params object, if it is an object;
    /// members of the wrong type count as absent (a count as 0).
    pub fn read<V: Value>(params: Option<&V>) -> Option<SessionHello> {
        let session = params.and_then(|p| p.member("session"))?;
        if session.kind() != super::value::Kind::Object {
            return None;
        }
        let session = Some(&session);
        let whole = |name: &str| number_of(session, name).filter(|n| *n >= 0.0 && *n <= 9.0e15).map(|n| n as u64);
        let id = text_of(session, "id");
        Some(SessionHello {
            id: id.filter(|id| !id.is_empty() && at_most_chars(id, MAX_SESSION_ID)),
            received: whole("received").unwrap_or(0),
            resumed: bool_of(session, "resumed"),
            grace_ms: whole("grace"),
        })
    }
}

/// The packed form of a batch, between two endpoints of this library on a
/// channel of structured clones (a `MessagePort`, a worker, a window) that
/// both offered it in `$/ready` (`"packed": true`): one object of parallel
/// arrays instead of an array of objects, which a structured clone copies
/// several times faster (every member object costs the clone its keys).
/// Only two kinds of batch go so ([`Transmit::packs`]); the payloads are the
/// same values, neither copied nor converted:
///
/// - calls: `{"jsonrpc": "2.0", "packed": "calls", "id": [1, 2, …], "method": ["add", …], "params": [[1, 2], …]}`
///   (a call without params has `undefined` at its place; `"meta": [{…}, …]`
///   beside them when a call has metadata, `undefined` where one has none);
/// - results: `{"jsonrpc": "2.0", "packed": "results", "id": [1, 2, …], "result": [3, …]}`.
///
/// The receiver reads each place as the member it stands for and answers
/// as it answers a batch. A peer that did not offer it never gets it: a
/// stranger sees arrays of plain messages, as the spec has them.
pub const PACKED: &str = "packed";

/// A request's metadata: a member of the request object beside `params`,
/// `"meta": {…}`, sent only to a peer whose `$/ready` offered `"meta": true`
/// (a stranger gets the request as the spec has it). What it holds is the
/// hosts' (a trace context, an idempotency key) but for [`DEADLINE`]; to
/// the core it is a value it carries, and from a peer it is data: an
/// object, or nothing.
pub const META: &str = "meta";

/// The member of a request's [`META`] that gives the time its caller
/// waits, in milliseconds (a positive number below 2^31; anything else is
/// none): the side that serves it answers `-32099` once that long has
/// passed since it arrived (or since its handler's last progress), and
/// tells the handler to stop.
pub const DEADLINE: &str = "deadline";

/// What goes out in one send: a message, or several as one batch array.
#[derive(Clone, Debug, PartialEq)]
pub enum Transmit<V> {
    Single(Message<V>),
    Batch(Vec<Message<V>>),
}

impl<V> Transmit<V> {
    /// Whether, toward a peer that reads the packed form ([`PACKED`]), this
    /// goes in it: a batch all of whose members are calls (no references in
    /// them), or all results to numeric ids (no references in them either).
    pub fn packs(&self) -> bool {
        let Transmit::Batch(messages) = self else { return false };
        match messages.first() {
            Some(Message::Request { .. }) => messages.iter().all(|message| match message {
                #[cfg(feature = "references")]
                Message::Request { refs, .. } => refs.is_none(),
                #[cfg(not(feature = "references"))]
                Message::Request { .. } => true,
                _ => false,
            }),
            Some(Message::Response(_)) => messages.iter().all(|message| match message {
                Message::Response(response) => {
                    let plain =
                        response.payload.is_ok() && response.id.as_ref().is_some_and(|id| id.as_number().is_some());
                    #[cfg(feature = "references")]
                    let plain = plain && response.refs.is_none();
                    plain
                }
                _ => false,
            }),
            _ => false,
        }
    }

    /// The messages it carries, in order.
    pub fn messages(&self) -> &[Message<V>] {
        match self {
            Transmit::Single(message) => core::slice::from_ref(message),
            Transmit::Batch(messages) => messages,
        }
    }
}

/// What an endpoint accepts beyond the spec's one message per call and one
/// array per batch. A peer that said nothing has none of them: it gets the
/// spec, exactly.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Capabilities {
    /// It reads a batch (an array of requests) and answers it.
    pub batches: bool,
    /// It takes the answers of one of its batches in several arrays, each
    /// sent as its members settle.
    pub split_batch_answers: bool,
    /// The longest batch it answers (0: it did not say).
    pub max_batch: usize,
    /// It honours `stream.credit`: a caller may bound what it streams.
    pub stream_credit: bool,
    /// It reads `$/progress` of its calls.
    pub progress: bool,
    /// It reads batches in the packed form ([`PACKED`]).
    pub packed: bool,
    /// It reads a request's metadata ([`META`]).
    pub meta: bool,
    /// It takes functions and objects by reference (`refs`, `$/ref/…`, `$/release`).
    #[cfg(feature = "references")]
    pub references: bool,
}

/// The longest presence name a hello may carry; a longer one says nothing.
pub const MAX_PRESENCE: usize = 200;

/// The presence name of a `$/ready` params object: a non-empty string of at
/// most [`MAX_PRESENCE`] characters, or nothing.
pub fn presence_of<V: Value>(params: Option<&V>) -> Option<String> {
    let name = text_of(params, "presence")?;
    (!name.is_empty() && at_most_chars(&name, MAX_PRESENCE)).then_some(name)
}

/// Whether `text` has at most `most` characters. Counted as the bytes that
/// begin one: `chars().count()` links a kilobyte of counting code for two
/// checks of a few hundred bytes.
fn at_most_chars(text: &str, most: usize) -> bool {
    text.bytes().filter(|&byte| byte & 0xC0 != 0x80).count() <= most
}

impl Capabilities {
    /// A peer nobody has vouched for: the spec only.
    pub const NONE: Capabilities = Capabilities {
        batches: false,
        split_batch_answers: false,
        max_batch: 0,
        stream_credit: false,
        progress: false,
        packed: false,
        meta: false,
        #[cfg(feature = "references")]
        references: false,
    };

    /// Reads the capabilities of a `$/ready` params object; members that are
    /// absent, not `true`, or unknown count as not offered.
    pub fn read<V: Value>(params: Option<&V>) -> (bool, Capabilities) {
        let flag = |name: &str| bool_of(params, name) == Some(true);
        let max_batch = number_of(params, "maxBatch");
        let capabilities = Capabilities {
            batches: flag("batches"),
            split_batch_answers: flag("splitBatchAnswers"),
            // A positive whole number; anything else says nothing.
            // `as u32` saturates at u32::MAX: no float `min` (a call in wasm) needed.
            max_batch: max_batch.filter(|n| *n >= 1.0).map_or(0, |n| n as u32 as usize),
            stream_credit: flag("streamCredit"),
            progress: flag("progress"),
            packed: flag(PACKED),
            meta: flag(META),
            #[cfg(feature = "references")]
            references: flag("references"),
        };
        (flag("ack"), capabilities)
    }
}
