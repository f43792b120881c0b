// The "From Rust" guide's worker: the Rust app's `serveMath` (tests/rust-app/src/example.rs).
import init, { serveMath } from "/rust/rust_app.js";

await init();
serveMath();
