//! The protocol core: JSON-RPC 2.0 message model, classification, dispatch,
//! the pending-request table, and the endpoint state machine over them. Pure
//! Rust: no JS types, no clock, no I/O. The caller feeds values in, passes
//! the time in, and sends what comes out.
//!
//! The core is generic over the payload type through [`Value`], so the same code
//! serves opaque JS values in the browser and `serde_json` values natively.

mod backoff;
mod dispatch;
mod endpoint;
mod error;
pub mod framing;
mod inbound;
#[cfg(not(target_arch = "wasm32"))]
pub mod json;
mod message;
mod pending;
mod table;
mod value;
mod wire;

pub use backoff::Backoff;
pub use dispatch::{Action, BatchPolicy, BatchReplies, CallId, Dispatcher, Outgoing, Roles, TextRefusal};
#[cfg(feature = "handoff")]
pub use endpoint::kept_sends;
#[cfg(feature = "references")]
pub use endpoint::ReferenceEvent;
pub use endpoint::{
    Batching, CallOptions, Config, Dialect, Endpoint, Event, Failure, HandOffRefused, HandedSession, Handshake, Limits,
    Outcome, SessionSetup, Timeouts, Undelivered, ACK_EVERY, COARSE_FROM_MS, DEFAULT_GRACE_MS, TICK_MS,
};
pub use error::{code, ErrorObject};
pub use inbound::{classify_envelope, thrown_error, Envelope, Framing, IdMember, Inbound};
pub use message::{Id, Notification, Request, Response};
pub use pending::{Deadline, Due, PendingTable};
pub use value::{Kind, Value};
pub use wire::{
    presented_session, Cancellation, Capabilities, Message, SessionHello, Transmit, CANCEL_REQUEST, DEADLINE,
    MCP_CANCELLED, MCP_PROGRESS, META, PACKED, PROGRESS, READY, SESSION_ACK, STREAM_CHUNK, STREAM_CREDIT, STREAM_END,
};
#[cfg(feature = "references")]
pub use wire::{REFERENCE, RELEASE};
