//! The bindings in a browser (`wasm-pack test --headless --chrome --firefox
//! . --features bindings-test --lib`): the numeric ABI, built by
//! wasm-bindgen (its exports are this test module's own), with the package's own glue
//! (js/module/abi.js and the root entry's classes, bundled as a snippet by
//! scripts/bindings-test-glue.mjs) on top, as a page runs them. Each test
//! drives JS endpoints over a real MessageChannel and checks what crossed.

use js_sys::{Array, Function, Object, Promise, Reflect, JSON};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

#[wasm_bindgen(module = "/target/bindings-test/glue.js")]
extern "C" {
    #[wasm_bindgen(js_name = startPackage)]
    fn start_package(exports: JsValue);
    #[wasm_bindgen(js_name = liveHandles)]
    fn live_handles() -> u32;
    fn pair() -> Object;
    fn stranger(wait: u32) -> Object;
    fn settle(ms: u32) -> Promise;

    type Endpoint;
    #[wasm_bindgen(method)]
    fn request(this: &Endpoint, method: &str, params: JsValue) -> Promise;
    #[wasm_bindgen(method)]
    fn method(this: &Endpoint, name: &str, handler: &Function);
    #[wasm_bindgen(method)]
    fn destroy(this: &Endpoint);
}

/// The glue started once per test module (each test may be the first).
fn started() {
    thread_local!(static STARTED: () = start_package(wasm_bindgen::exports()));
    STARTED.with(|_| ());
}

fn get(object: &JsValue, key: &str) -> JsValue {
    Reflect::get(object, &key.into()).unwrap()
}

fn json(text: &str) -> JsValue {
    JSON::parse(text).unwrap()
}

fn text(value: &JsValue) -> String {
    JSON::stringify(value).unwrap().as_string().unwrap()
}

async fn wait(promise: Promise) -> Result<JsValue, JsValue> {
    JsFuture::from(promise).await
}

/// A client and a server on a MessageChannel, the server serving `add`,
/// `mul` and `echo`, and what each side posts.
fn served() -> (Endpoint, Endpoint, JsValue) {
    started();
    let both = pair();
    let server: Endpoint = get(&both, "server").unchecked_into();
    let add = Function::new_with_args("p", "return p[0] + p[1]");
    let mul = Function::new_with_args("p", "return p[0] * p[1]");
    let echo = Function::new_with_args("p", "return p");
    server.method("add", &add);
    server.method("mul", &mul);
    server.method("echo", &echo);
    (get(&both, "client").unchecked_into(), server, get(&both, "posted"))
}

#[wasm_bindgen_test]
async fn a_call_crosses_the_bindings_and_back_and_its_handles_are_let_go() {
    let (client, server, _) = served();
    let before = live_handles();
    let sum = wait(client.request("add", json("[2, 3]"))).await.unwrap();
    assert_eq!(sum.as_f64(), Some(5.0));
    let echoed = wait(client.request("echo", json(r#"[{"a": [1, "two", null, true]}]"#))).await.unwrap();
    assert_eq!(text(&echoed), r#"[{"a":[1,"two",null,true]}]"#);
    let missing = wait(client.request("nope", JsValue::UNDEFINED)).await.unwrap_err();
    assert_eq!(get(&missing, "code").as_f64(), Some(-32601.0));
    client.destroy();
    server.destroy();
    wait(settle(10)).await.unwrap();
    // Every value the module was given a handle to has been let go.
    assert!(live_handles() <= before, "{} handles live, {} before", live_handles(), before);
}

#[wasm_bindgen_test]
async fn calls_in_flight_go_in_one_packed_batch_each_way_and_each_member_reaches_its_method() {
    let (client, server, posted) = served();
    // The hello answered first: from then on a turn's calls go together.
    wait(client.request("add", json("[0, 0]"))).await.unwrap();
    let sent_before = Array::from(&get(&posted, "client")).length();
    let answered_before = Array::from(&get(&posted, "server")).length();
    // Methods interleaved, so each member's name must be its own; one named
    // for the first time in the batch, the rest known by number.
    let calls = Array::new();
    for i in 0..64 {
        let (method, params) = match i % 3 {
            0 => ("add", format!("[{i}, 1]")),
            1 => ("mul", format!("[{i}, 2]")),
            _ => ("echo", format!("[{i}]")),
        };
        calls.push(&client.request(method, json(&params)));
    }
    let results = Array::from(&wait(Promise::all(&calls)).await.unwrap());
    for i in 0..64u32 {
        let want = match i % 3 {
            0 => format!("{}", i + 1),
            1 => format!("{}", i * 2),
            _ => format!("[{i}]"),
        };
        assert_eq!(text(&results.get(i)), want, "call {i}");
    }
    // The turn's first call goes at once, the other 63 together, packed
    // (both ends are this library's, on a channel of structured clones);
    // the answers as they came.
    let sent = Array::from(&get(&posted, "client")).slice(sent_before, u32::MAX);
    let answered = Array::from(&get(&posted, "server")).slice(answered_before, u32::MAX);
    let sizes = |messages: &Array| {
        messages
            .iter()
            .map(|one| match get(&one, "packed").as_string() {
                Some(kind) => format!("{kind} {}", Array::from(&get(&one, "id")).length()),
                None if Array::is_array(&one) => format!("array {}", Array::from(&one).length()),
                None => "one".to_owned(),
            })
            .collect::<Vec<_>>()
    };
    assert_eq!(sizes(&sent), ["one", "calls 63"], "the client's calls: {}", text(&sent));
    assert_eq!(sizes(&answered), ["one", "results 63"], "the server's answers: {}", text(&answered));
    client.destroy();
    server.destroy();
}

#[wasm_bindgen_test]
async fn a_stranger_s_bad_input_gets_the_errors_the_spec_names() {
    started();
    let other = stranger(100);
    let ask = |message: &str| {
        let ask: Function = get(&other, "ask").unchecked_into();
        ask.call1(&JsValue::NULL, &json(message)).unwrap().unchecked_into::<Promise>()
    };
    let code = |answer: &JsValue| get(&get(answer, "error"), "code").as_f64();

    let answer = wait(ask(r#"{"jsonrpc": "2.0", "method": "nope", "id": 1}"#)).await.unwrap();
    assert_eq!(code(&answer), Some(-32601.0));
    assert_eq!(get(&answer, "id").as_f64(), Some(1.0));

    let answer = wait(ask(r#"{"jsonrpc": "2.0", "method": 1, "id": 2}"#)).await.unwrap();
    assert_eq!(code(&answer), Some(-32600.0));

    // A batch with a member of each kind: not an object, a method that is
    // no string, a known method and an unknown one, in order.
    let answer = wait(ask(
        r#"[5, {"jsonrpc": "2.0", "method": {}, "id": 3}, {"jsonrpc": "2.0", "method": "nope", "id": 4}, {"jsonrpc": "2.0", "method": "nope"}]"#,
    ))
    .await
    .unwrap();
    let answers = Array::from(&answer);
    assert_eq!(answers.length(), 3, "{}", text(&answer));
    assert_eq!(code(&answers.get(0)), Some(-32600.0));
    assert!(get(&answers.get(0), "id").is_null());
    assert_eq!(code(&answers.get(1)), Some(-32600.0));
    assert_eq!(get(&answers.get(1), "id").as_f64(), Some(3.0));
    assert_eq!(code(&answers.get(2)), Some(-32601.0));

    let answer = wait(ask("[]")).await.unwrap();
    assert_eq!(code(&answer), Some(-32600.0));

    // What is not JSON-RPC at all gets no answer.
    assert!(wait(ask(r#"{"hello": "world"}"#)).await.unwrap().is_undefined());
    let close: Function = get(&other, "close").unchecked_into();
    close.call0(&JsValue::NULL).unwrap();
}
