// The "From Rust" guide's example (docs/guide/rust.md shows this file as it
// is; tests/js/rust-interop.test.mjs runs it in Chromium and Firefox).
use serde::{Deserialize, Serialize};
use wasm_bindgen::prelude::*;
use wiggum_rpc_web::{code, transport, Error, Peer};

#[derive(Serialize, Deserialize)]
pub struct Add {
    pub a: f64,
    pub b: f64,
}

/// In the worker (`math-worker.js`: `await init(); serveMath();`).
#[wasm_bindgen(js_name = serveMath)]
pub fn serve_math() {
    let peer = Peer::new(transport::worker_scope());
    peer.method("add", |Add { a, b }: Add| async move { Ok(a + b) });
    peer.method("sqrt", |(x,): (f64,)| async move {
        match x >= 0.0 {
            true => Ok(x.sqrt()),
            false => Err(Error::new(code::INVALID_PARAMS, "sqrt of a negative number")),
        }
    });
    // Serve for the worker's life.
    peer.forget();
}

/// In the page: asks the worker, typed both ways.
#[wasm_bindgen(js_name = askMath)]
pub async fn ask_math(worker: web_sys::Worker) -> Result<String, JsError> {
    let math = Peer::new(transport::worker(&worker));
    let sum: f64 = math.request("add", &Add { a: 2.0, b: 3.0 }).await?;
    let refused = math.request::<_, f64>("sqrt", &(-1.0,)).await.unwrap_err();
    Ok(format!("2 + 3 = {sum}; sqrt(-1): {} ({})", refused.message, refused.code))
}
