//! wiggum-rpc
pub mod core;
