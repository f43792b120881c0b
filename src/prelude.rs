//! The names std's prelude would bring. The package's wasm build is
//! `no_std` (see `lib.rs`), so modules import them from here instead.

pub use alloc::borrow::ToOwned;
pub use alloc::string::String;
pub use alloc::vec::Vec;
pub use alloc::{format, vec};
