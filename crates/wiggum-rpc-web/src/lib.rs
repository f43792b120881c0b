//! wiggum-rpc for Rust apps in the browser: a JSON-RPC 2.0 [`Peer`] over a
//! `Worker`, a worker's own scope, a `MessagePort` or a `Window`, on the same
//! protocol core as the npm package, so a Rust side and a JS side (or any
//! JSON-RPC peer) speak one wire.
//!
//! ```no_run
//! # async fn page() -> Result<(), wiggum_rpc_web::Error> {
//! use wiggum_rpc_web::{transport, Peer};
//!
//! let worker = web_sys::Worker::new("./math-worker.js").unwrap();
//! let math = Peer::new(transport::worker(&worker));
//! let sum: f64 = math.request("add", &(2, 3)).await?;
//! assert_eq!(sum, 5.0);
//! # Ok(()) }
//! ```
//!
//! - [`Peer`]: calls (`request`, `notify`) and methods served (`method`,
//!   `notification`), typed through serde (serde-wasm-bindgen), or with
//!   `JsValue`s passed untouched and transfer lists ([`Peer::request_value`],
//!   [`Peer::method_value`]).
//! - [`transport`]: where a Peer posts and listens (web-sys).
//! - [`Error`]: how a call failed: the code, message and data of the
//!   JSON-RPC error, or how it ended on this side (its timeout, its
//!   cancellation, the other side gone).
//!
//! Futures run on wasm-bindgen-futures: dropping a call's future cancels
//! the call (the other side is told, as the JS API's `AbortSignal` does).

#[cfg(target_arch = "wasm32")]
mod error;
#[cfg(target_arch = "wasm32")]
mod peer;
#[cfg(target_arch = "wasm32")]
mod platform;
#[cfg(target_arch = "wasm32")]
pub mod transport;
#[cfg(target_arch = "wasm32")]
mod value;
#[cfg(target_arch = "wasm32")]
mod wire;

#[cfg(target_arch = "wasm32")]
pub use error::Error;
#[cfg(target_arch = "wasm32")]
pub use peer::{CallOptions, Incoming, Peer, PeerOptions, Reply, Request};
#[cfg(target_arch = "wasm32")]
pub use transport::Transport;

/// The error codes of JSON-RPC 2.0, of this library, and of the Wiggum
/// domain (`BUILD_FAILED` … `CONTEXT_OVERFLOW`, -32001 to -32008), as the JS
/// API's `ErrorCode` names them.
pub mod code {
    pub use wiggum_rpc::core::code::*;
}
