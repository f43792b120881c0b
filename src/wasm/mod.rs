//! The WebAssembly layer: bindings of the protocol core for JS.
//!
//! - [`boundary`]: every import from `glue.js`, the envelope flags, `Value` for `JsValue`.
//! - [`binding`]: one core endpoint on one JS transport.
//! - [`classes`]: `JSONRPCClient`, `JSONRPCServer`, `Peer`.
//! - `introspection`, `jrpc_oo`: the built-in methods, jrpc-oo's conventions.
//! - `websocket`: the WebSocket transport's reconnect schedule (the transport
//!   is JS, `websocket.js`, outside the module's imports).
//! - `framed`: the stream transport (feature `framing`).
//!
//! The postMessage transports hold no protocol logic and are plain JS
//! (`transport.js`), exported as they are.

mod binding;
mod boundary;
mod classes;
#[cfg(feature = "framing")]
mod framed;
mod introspection;
mod jrpc_oo;
mod types;
mod websocket;

#[cfg(test)]
#[path = "../../tests/browser/suite.rs"]
mod browser_suite;

use wasm_bindgen::prelude::*;

pub use classes::{JSONRPCClient, JSONRPCServer, Peer};
pub use websocket::reconnect_delay;

/// The crate's own allocator instead of std's dlmalloc (see the `allocator` feature).
#[cfg(feature = "allocator")]
#[global_allocator]
static ALLOCATOR: crate::heap::Wasm = crate::heap::Wasm::new();

// The postMessage transports and their base class (on which
// `wiggum-rpc/websocket` builds too) are plain JS (transport.js says why),
// exported as they are; their types are in `types.rs`.
#[wasm_bindgen(module = "/src/wasm/transport.js")]
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
}
