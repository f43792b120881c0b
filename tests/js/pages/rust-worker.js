// A Rust worker (tests/rust-app, built by wasm-pack --target web): what the
// page posts while its module loads is kept by wiggum-rpc-web's snippet.
import init, { serveInWorker } from "/rust/rust_app.js";

await init();
serveInWorker();
