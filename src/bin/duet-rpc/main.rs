//! `duet-rpc`: a native command on the same protocol core as the browser
//! package. `duet-rpc rpc` serves JSON-RPC 2.0 over stdio with LSP-style
//! Content-Length framing, for editors such as Emacs (jsonrpc.el).

#[cfg(not(target_arch = "wasm32"))]
mod cli;
#[cfg(not(target_arch = "wasm32"))]
mod daemon;
#[cfg(not(target_arch = "wasm32"))]
mod log;
#[cfg(not(target_arch = "wasm32"))]
mod methods;

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    std::process::exit(cli::run(std::env::args().skip(1).collect()));
}

// The browser build has no stdio daemon.
#[cfg(target_arch = "wasm32")]
fn main() {}
