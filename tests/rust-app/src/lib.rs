//! A Rust app on wiggum-rpc-web, as the interop tests drive it
//! (tests/js/rust-interop.test.mjs, tests/js/pages/rust-interop.js): each
//! export is one side of a boundary whose other side is the npm package in
//! JS, or a stranger, and reports what it saw.

pub mod example;

use std::time::Duration;

use js_sys::{Array, Object, Reflect};
use serde::{Deserialize, Serialize};
use wasm_bindgen::prelude::*;
use web_sys::{Blob, MessagePort, Window, Worker};
use wiggum_rpc_web::{code, transport, CallOptions, Error, Peer, Reply};

#[derive(Serialize, Deserialize)]
struct Sum {
    a: f64,
    b: f64,
}

fn report(entries: &[(&str, JsValue)]) -> JsValue {
    let object = Object::new();
    for (name, value) in entries {
        Reflect::set(&object, &JsValue::from_str(name), value).unwrap();
    }
    object.into()
}

fn error_report(error: &Error) -> JsValue {
    report(&[
        ("code", JsValue::from_f64(error.code as f64)),
        ("message", JsValue::from_str(&error.message)),
        ("data", error.data.clone().unwrap_or(JsValue::UNDEFINED)),
    ])
}

/// What the Rust side serves wherever it runs: `add` (typed), `fail` (a
/// domain error with data), `blob` (a JS value back untouched), `hang`
/// (never answered).
fn serve(peer: &Peer) {
    peer.method("add", |Sum { a, b }: Sum| async move { Ok(a + b) });
    peer.method(
        "fail",
        |()| async move { Err::<(), _>(Error::new(code::GATE_FAILED, "gate failed").with_data(&["lint"])) },
    );
    peer.method_value("blob", |call| async move {
        let blob = call.params.unwrap_or(JsValue::NULL);
        Ok(Reply::new(Array::of2(&blob.is_instance_of::<Blob>().into(), &blob).into()))
    });
    peer.method_value("hang", |_| std::future::pending());
}

/// Calls what a JS side serves (`add`, `fail`, `echo`, `hang`) and reports.
async fn call_js_side(peer: &Peer) -> JsValue {
    let sum: Result<f64, Error> = peer.request("add", &Sum { a: 2.0, b: 3.0 }).await;
    let failed = peer.request::<_, ()>("fail", &()).await.unwrap_err();
    let blob = Blob::new_with_str_sequence(&Array::of1(&"from Rust".into())).unwrap();
    let echoed = peer.request_value("echo", Some(blob.into()), CallOptions::default()).await;
    let missing = peer.request::<_, ()>("nope", &()).await.unwrap_err();
    let short = CallOptions { timeout: Some(Duration::from_millis(200)), ..Default::default() };
    let timed_out = peer.request_value("hang", None, short).await.unwrap_err();
    report(&[
        ("sum", sum.map(JsValue::from_f64).unwrap_or_else(|e| error_report(&e))),
        ("failed", error_report(&failed)),
        ("echoedBlob", echoed.map(|v| v.is_instance_of::<Blob>().into()).unwrap_or_else(|e| error_report(&e))),
        ("missing", error_report(&missing)),
        ("timedOut", error_report(&timed_out)),
    ])
}

/// A Rust page and a JS worker (the npm package's web build): the page
/// serves too, and the worker calls it back.
#[wasm_bindgen(js_name = pageCallsJsWorker)]
pub async fn page_calls_js_worker(worker: Worker) -> JsValue {
    let peer = Peer::new(transport::worker(&worker));
    serve(&peer);
    let called = call_js_side(&peer).await;
    // The worker calls the page's `add` and `fail` and reports.
    let back = peer.request_value("callBack", None, CallOptions::default()).await.unwrap_or_else(|e| error_report(&e));
    let ended =
        peer.request_value("hang", None, CallOptions { timeout: Some(Duration::from_secs(20)), ..Default::default() });
    // The worker terminated: the waiting call fails at once, not at its timeout.
    let started = js_sys::Date::now();
    wasm_bindgen_futures::JsFuture::from(js_sys::Promise::new(&mut |resolve, _| {
        web_sys::window().unwrap().set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, 300).unwrap();
    }))
    .await
    .unwrap();
    worker.terminate();
    let gone = ended.await.unwrap_err();
    let gone_ms = js_sys::Date::now() - started - 300.0;
    report(&[("called", called), ("back", back), ("gone", error_report(&gone)), ("goneMs", JsValue::from_f64(gone_ms))])
}

/// Inside a worker: serves the page for the worker's life.
#[wasm_bindgen(js_name = serveInWorker)]
pub fn serve_in_worker() {
    let peer = Peer::new(transport::worker_scope());
    serve(&peer);
    peer.forget();
}

/// A Rust page and a JS iframe of `origin`, made just before (still loading).
#[wasm_bindgen(js_name = pageCallsJsFrame)]
pub async fn page_calls_js_frame(frame: Window, origin: String) -> JsValue {
    let peer = Peer::new(transport::window(&frame, &origin));
    serve(&peer);
    let called = call_js_side(&peer).await;
    let back = peer.request_value("callBack", None, CallOptions::default()).await.unwrap_or_else(|e| error_report(&e));
    report(&[("called", called), ("back", back)])
}

/// A Rust page toward json-rpc-2.0 on a MessagePort (a stranger: it never
/// says hello, takes no batch, ignores `$/` notifications).
#[wasm_bindgen(js_name = towardStranger)]
pub async fn toward_stranger(port: MessagePort) -> JsValue {
    let peer = Peer::new(transport::port(port));
    serve(&peer);
    // Calls made in one turn go one message each toward a peer that said nothing.
    let first = peer.request::<_, f64>("add", &Sum { a: 1.0, b: 2.0 });
    let second = peer.request::<_, f64>("add", &Sum { a: 3.0, b: 4.0 });
    let (first, second) = (first.await, second.await);
    let failed = peer.request::<_, ()>("fail", &()).await.unwrap_err();
    let back = peer.request_value("callBack", None, CallOptions::default()).await.unwrap_or_else(|e| error_report(&e));
    report(&[
        (
            "sums",
            Array::of2(
                &first.map(JsValue::from_f64).unwrap_or(JsValue::NULL),
                &second.map(JsValue::from_f64).unwrap_or(JsValue::NULL),
            )
            .into(),
        ),
        ("failed", error_report(&failed)),
        ("back", back),
    ])
}
