//! wiggum-rpc: JSON-RPC 2.0 for every message boundary of a browser app.
//!
//! - [`core`]: the protocol, pure Rust, sans-IO, tested natively.
//! - `wasm` (wasm32 only): the JS API over the core, built with wasm-bindgen.

pub mod core;
#[cfg(target_arch = "wasm32")]
pub mod wasm;
