//! What an endpoint is configured with, and what it tells its host: its
//! [`Config`], the [`Event`]s polled from it and the [`Timeouts`] it needs.

use crate::prelude::*;

use super::super::dispatch::{BatchPolicy, CallId, Roles};
use super::super::error::ErrorObject;
use super::super::pending::Deadline;
use super::super::wire::{Cancellation, Capabilities, Transmit};

/// Timeouts this long or longer are measured from the next reading of a
/// coarse clock (see [`Due::AfterNextReading`](crate::core::Due::AfterNextReading)) rather than from a reading
/// per call: never early, at most a tick late.
pub const COARSE_FROM_MS: u64 = 1_000;
/// How often the host reads the clock while calls wait for a reading.
pub const TICK_MS: u64 = 100;

/// Whether an endpoint says hello in `$/ready`, and whether it waits for the
/// other side before sending.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Handshake {
    /// No hello. A hello from the other side is still answered.
    Off,
    /// Hello at start; messages go out at once (the channel keeps them until
    /// the other side listens, as a `MessagePort` does).
    Announce,
    /// Hello at start; calls wait until the other side has shown it is
    /// there (a window or a worker may still be loading).
    Hold,
    /// Hello at start; calls wait for the other side's hello itself, not
    /// for the connection (a WebSocket toward a server known to be of this
    /// library: what the hello says it takes, metadata among it, applies
    /// from the first call).
    Await,
}

/// When this side's calls of one turn go out as one batch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Batching {
    /// Only toward a peer that announced it reads batches (the default).
    Negotiated,
    /// Always, as the caller asked (`{ batch: true }`).
    Always,
    /// Never.
    Never,
}

/// What one peer may ask of this side, so that a hostile or broken peer
/// cannot stall or bloat the others sharing the page or the process. Past a
/// limit the peer gets the spec's `-32600` (a message or batch too large, or
/// nested too deep) or [`code::TOO_MANY_CALLS`](crate::core::code::TOO_MANY_CALLS),
/// and its other calls go on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// The most calls this side serves for the peer at once (a batch's
    /// members count one each).
    pub max_in_flight: usize,
    /// The largest message of a text transport, in bytes of UTF-8.
    pub max_message_bytes: usize,
    /// The deepest nesting of arrays and objects in a text message.
    pub max_depth: usize,
    /// The most of this side's references the peer may hold (export
    /// entries), and the most stubs of the peer's this side takes (imports):
    /// past it, [`code::TOO_MANY_REFERENCES`](crate::core::code::TOO_MANY_REFERENCES).
    #[cfg(feature = "references")]
    pub max_references: usize,
}

impl Limits {
    /// The longest batch a server answers by default.
    pub const MAX_BATCH: usize = 1_000;

    pub const DEFAULT: Limits = Limits {
        max_in_flight: 10_000,
        max_message_bytes: 10 << 20,
        max_depth: 1_000,
        #[cfg(feature = "references")]
        max_references: 10_000,
    };
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Config {
    pub roles: Roles,
    pub handshake: Handshake,
    pub batching: Batching,
    pub batch_policy: BatchPolicy,
    /// Reads `"params": null` as no params (see [`Dispatcher::set_null_params_absent`](crate::core::Dispatcher::set_null_params_absent)).
    pub null_params_absent: bool,
    /// Which notification cancels a request, both ways (MCP has its own).
    pub cancellation: Cancellation,
    pub limits: Limits,
    /// The protocol spoken over JSON-RPC ([`Config::with_dialect`] sets it
    /// with its conventions).
    pub dialect: Dialect,
    /// The channel carries structured clones, not text, and the host reads
    /// and writes the packed form of batches ([`crate::core::PACKED`]): offered
    /// in `$/ready` in the plain dialect, without a session or references
    /// (whose messages keep their own forms).
    pub packed: bool,
    /// The host reads and writes requests' metadata ([`crate::core::META`]):
    /// offered in `$/ready` in the plain dialect; a request's goes only to a
    /// peer that offered it, and a peer's reaches the handler only then.
    pub meta: bool,
    /// Functions and objects by reference: offered in `$/ready` by a Peer
    /// in the plain dialect, taken from a peer that offered them.
    #[cfg(feature = "references")]
    pub references: bool,
}

/// A protocol built on JSON-RPC 2.0 whose conventions change what goes on the wire.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dialect {
    /// JSON-RPC 2.0 and this library's extensions.
    Plain,
    /// The Model Context Protocol (2025-06-18 and later): never a batch (that
    /// revision removed them), and cancellation by `notifications/cancelled`
    /// with `requestId`, both ways.
    Mcp,
    /// jrpc-oo's conventions: positional params travel as `{"args": [...]}`
    /// both ways (`[]` when a call has none), except to its own `system.*`
    /// methods, which take params as they are.
    JrpcOo,
}

impl Config {
    /// This configuration under `dialect`'s conventions.
    pub fn with_dialect(self, dialect: Dialect) -> Self {
        match dialect {
            Dialect::Plain | Dialect::JrpcOo => Config { dialect, ..self },
            Dialect::Mcp => Config { batching: Batching::Never, cancellation: Cancellation::Mcp, dialect, ..self },
        }
    }

    pub fn new(roles: Roles) -> Self {
        Config {
            roles,
            handshake: Handshake::Off,
            batching: Batching::Negotiated,
            batch_policy: BatchPolicy::Limit(Limits::MAX_BATCH),
            null_params_absent: false,
            cancellation: Cancellation::Lsp,
            limits: Limits::DEFAULT,
            dialect: Dialect::Plain,
            packed: false,
            meta: false,
            #[cfg(feature = "references")]
            references: false,
        }
    }
}

/// Why a transport that carries each message as a request of its own (HTTP)
/// got no response to calls it carried. The transport says which calls, by
/// id, and why; the endpoint decides the answer each still-waiting call gets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Undelivered {
    /// The request failed, its reply was an error status, had no response
    /// to the call, or its stream ended before one: `HTTP_ERROR`
    /// (`MCP_SERVER_ERROR` in the MCP dialect).
    Failed,
    /// The reply was not JSON: `PARSE_ERROR`, as the spec names it.
    NotJson,
    /// The server no longer knows the session the call went in (MCP):
    /// `SESSION_EXPIRED`.
    SessionExpired,
}

/// How a call of this side ended without an answer from the other side.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Failure {
    /// Its deadline passed. `sent` is false when it never left this side
    /// (held for a handshake the other side never answered).
    Timeout { sent: bool },
    /// The caller cancelled it.
    Cancelled,
    /// The endpoint was destroyed.
    Destroyed,
    /// The connection it was sent on closed.
    ConnectionClosed,
}

/// How a call of this side settled.
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome<V> {
    Result(V),
    Error(ErrorObject<V>),
    Failed(Failure),
}

/// What the host must do, in order.
#[derive(Clone, Debug, PartialEq)]
pub enum Event<V, H, W> {
    /// Send this.
    Transmit(Transmit<V>),
    /// Run a method handler; report its outcome with [`super::Endpoint::complete`].
    Invoke { call: CallId, handler: H, params: Option<V>, meta: Option<V> },
    /// Run a notification handler.
    Notify { handler: H, params: Option<V> },
    /// A notification nobody handles (dropped, as the spec says; a host may log it).
    Unhandled { method: String },
    /// A call of this side's has settled: its waiter goes back to the host.
    Settled { id: u64, waiter: W, outcome: Outcome<V> },
    /// Progress of a call of this side's, ahead of its answer.
    Progress { id: u64, waiter: W, value: V },
    /// A chunk of a call of this side's, ahead of its answer.
    Chunk { id: u64, waiter: W, chunk: Option<V> },
    /// The other side cancelled a call this side is serving: tell its handler.
    /// Its answer, whenever it comes, is still sent.
    Cancelled { call: CallId },
    /// The asynchronous check of a served call's params took too long (see
    /// [`super::Endpoint::checking`]): the call has been answered; stop the check.
    CheckExpired { call: CallId },
    /// The deadline a served call's caller gave it ([`crate::core::DEADLINE`])
    /// has passed: the call has been answered `-32099`; stop its handler.
    DeadlinePassed { call: CallId },
    /// The other side said hello or answered ours, with what it accepts.
    PeerReady(Capabilities),
    /// The handler of `call` had sent all the chunks its caller allowed, and
    /// may send more now (see [`super::Endpoint::may_stream`]).
    MayStream { call: CallId },
    /// The other side's hello named its presence (see
    /// [`super::Endpoint::with_presence`]): watch it, and report its end with
    /// [`super::Endpoint::connection_closed`]. Once per name: a new name is a
    /// new instance on the other side (a frame that reloaded).
    WatchPeer(String),
    /// The session this side was in is over (its grace ran out, it could
    /// not be resumed, or it outgrew what it may keep): its calls failed.
    SessionEnded,
    /// Call [`super::Endpoint::flush`] once the current turn's work is done (a
    /// microtask in a browser): queued calls and batch answers go out then.
    ScheduleFlush,
    /// Something about references, by the connection's rules.
    #[cfg(feature = "references")]
    References(ReferenceEvent<V>),
}

/// What the host must do about references (see [`Event::References`]).
#[cfg(feature = "references")]
#[derive(Clone, Debug, PartialEq)]
pub enum ReferenceEvent<V> {
    /// The next event's payload (a handler's params, a notification's, a
    /// call's result) holds references at these `[[id, path], …]`: a stub
    /// for each `id > 0`, this side's own export `-id` for each `id < 0`.
    Stubs(V),
    /// Run export `reference` (its `member`, if named) as the handler of
    /// `call`, and answer as any handler does ([`super::Endpoint::complete`]).
    Invoke { call: CallId, reference: u32, member: Option<String>, params: Option<V> },
    /// The other side released every introduction of these exports: forget their targets.
    Freed(Vec<u32>),
    /// The connection's references are gone, both ways: every stub fails,
    /// every target is forgotten.
    Dropped,
}

/// How one call of this side's is made (see [`super::Endpoint::request_with`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CallOptions {
    /// It times out this long after it is made (none: it waits for ever).
    pub timeout_ms: Option<u64>,
    /// Chunks its handler may send ahead of the caller (flow control).
    pub window: Option<u32>,
    /// The caller listens to its progress (in MCP's dialect the request then
    /// carries a progress token; elsewhere progress comes anyway).
    pub progress: bool,
    /// Each progress of its moves its deadline: it times out `timeout_ms`
    /// after the last sign of life.
    pub reset_on_progress: bool,
    /// A deadline nothing moves, from when it is made.
    pub max_total_ms: Option<u64>,
}

/// The timers an endpoint needs now.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Timeouts {
    /// Calls wait for a clock reading: call [`super::Endpoint::handle_timeout`]
    /// within [`TICK_MS`].
    pub reading: bool,
    /// Call [`super::Endpoint::handle_timeout`] at this time (it may be earlier
    /// than needed, never later).
    pub deadline: Option<Deadline>,
}
