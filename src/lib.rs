//! wiggum-rpc: JSON-RPC 2.0 for every message boundary of a browser app.
//!
//! - [`core`]: the protocol, pure Rust, sans-IO, tested natively.
//! - `bindings` (wasm32, feature `bindings`): the core for the npm package's JS
//!   glue behind a narrow numeric ABI through wasm-bindgen (`#[wasm_bindgen]`
//!   exports and imports of numbers), built by `wasm-pack build`. Rust apps in the browser use
//!   the core through the `wiggum-rpc-web` crate instead.
//!
//! The package's wasm build (`scripts/build.sh` sets `--cfg wiggum_no_std`)
//! is `no_std` with `alloc`, [`heap`] its allocator, and a panic there traps:
//! std's panic and formatting machinery, which any bounds check could reach,
//! would otherwise be a sizeable share of the module. (Nothing here is meant
//! to panic: a panic in wasm takes every peer in the page down.) Without the
//! cfg, as when this crate is linked into another Rust program or tested, it
//! is built with std.

#![cfg_attr(all(target_arch = "wasm32", wiggum_no_std, not(test)), no_std)]

extern crate alloc;

#[cfg(all(target_arch = "wasm32", feature = "bindings"))]
pub mod bindings;
pub mod core;
#[cfg(any(test, target_arch = "wasm32"))]
pub mod heap;
mod prelude;

#[cfg(all(target_arch = "wasm32", wiggum_no_std, not(test), not(feature = "allocator")))]
compile_error!("the no_std build needs an allocator: enable the `allocator` feature");

#[cfg(all(target_arch = "wasm32", wiggum_no_std, not(test)))]
#[panic_handler]
fn panic(_: &::core::panic::PanicInfo) -> ! {
    ::core::arch::wasm32::unreachable()
}
