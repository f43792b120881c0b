//! The bindings: the protocol core for JS, built with wasm-bindgen.
//!
//! - [`boundary`]: every `extern` block (the imports from `js/module/`, the
//!   postMessage transports re-exported from `js/transports/postmessage.js`),
//!   `Value` for `JsValue`.
//! - `envelope`: the numbers the per-message path passes (envelope flags,
//!   signals); `interned`: method names remembered, property names made once.
//! - [`binding`]: one core endpoint on one JS transport.
//! - `classes`: the exports behind `JSONRPCClient`, `JSONRPCServer` and
//!   `Peer` (JS classes, `js/module/endpoints.js`).
//! - `websocket`: the WebSocket transport's reconnect schedule (the transport
//!   is JS, `js/transports/websocket.js`, outside the module's imports).
//! - `framed`: the stream transport (feature `framing`).
//! - `types`: the TypeScript declarations of the root entry.

mod binding;
mod boundary;
mod classes;
mod envelope;
#[cfg(feature = "framing")]
mod framed;
mod interned;
mod types;
mod websocket;

#[cfg(test)]
#[path = "../../tests/browser/suite.rs"]
mod browser_suite;

pub use websocket::reconnect_delay;

/// The crate's own allocator instead of std's dlmalloc (see the `allocator` feature).
#[cfg(feature = "allocator")]
#[global_allocator]
static ALLOCATOR: crate::heap::Wasm = crate::heap::Wasm::new();
