//! The Rust API in a browser (`wasm-pack test --headless --chrome --firefox`):
//! two Peers on a real MessageChannel, and a hand-written JS side on a port
//! where the test must see the wire itself.
#![cfg(target_arch = "wasm32")]

use std::cell::{Cell, RefCell};
use std::rc::Rc;
use std::time::Duration;

use js_sys::{Array, ArrayBuffer, Promise, Reflect, Uint8Array, JSON};
use serde::{Deserialize, Serialize};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use wasm_bindgen_test::*;
use web_sys::{Blob, MessageChannel, MessageEvent, MessagePort};
use wiggum_rpc_web::{code, transport, CallOptions, Error, Peer, Reply};

wasm_bindgen_test_configure!(run_in_browser);

async fn sleep(ms: i32) {
    let promise = Promise::new(&mut |resolve, _| {
        web_sys::window().unwrap().set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, ms).unwrap();
    });
    JsFuture::from(promise).await.unwrap();
}

/// Two Peers, one on each end of a new MessageChannel.
fn pair() -> (Peer, Peer) {
    let channel = MessageChannel::new().unwrap();
    (Peer::new(transport::port(channel.port1())), Peer::new(transport::port(channel.port2())))
}

/// A port whose messages the test reads as JSON text, and the other end.
fn raw() -> (MessagePort, Rc<RefCell<Vec<String>>>, MessagePort) {
    let channel = MessageChannel::new().unwrap();
    let seen = Rc::new(RefCell::new(Vec::new()));
    let into = seen.clone();
    let listener = Closure::<dyn FnMut(MessageEvent)>::new(move |event: MessageEvent| {
        into.borrow_mut().push(JSON::stringify(&event.data()).unwrap().as_string().unwrap());
    });
    channel.port1().set_onmessage(Some(listener.as_ref().unchecked_ref()));
    listener.forget();
    (channel.port1(), seen, channel.port2())
}

async fn until(what: &str, mut done: impl FnMut() -> bool) {
    for _ in 0..200 {
        if done() {
            return;
        }
        sleep(10).await;
    }
    panic!("{what}: not within 2 s");
}

#[derive(Serialize, Deserialize, Debug, PartialEq)]
struct Sum {
    a: f64,
    b: f64,
}

#[wasm_bindgen_test]
async fn typed_calls_and_notifications_between_two_peers() {
    let (client, server) = pair();
    server.method("add", |Sum { a, b }: Sum| async move { Ok(a + b) });
    server.method("swap", |(a, b): (String, u32)| async move { Ok((b, a)) });
    server.method("nothing", |()| async move { Ok(()) });
    let heard = Rc::new(RefCell::new(Vec::new()));
    let into = heard.clone();
    server.notification("log", move |(line,): (String,)| into.borrow_mut().push(line));

    assert_eq!(client.request::<_, f64>("add", &Sum { a: 2.0, b: 3.0 }).await.unwrap(), 5.0);
    assert_eq!(client.request::<_, (u32, String)>("swap", &("x", 7)).await.unwrap(), (7, "x".to_string()));
    // A handler that returns nothing answers null.
    assert_eq!(client.request::<_, Option<u8>>("nothing", &()).await.unwrap(), None);
    client.notify("log", &("hello",)).unwrap();
    // Params must be structured (the spec): a string alone is refused before it is sent.
    assert_eq!(client.notify("log", "hello").unwrap_err().code, code::INVALID_PARAMS);
    until("the notification", || heard.borrow().len() == 1).await;
    assert_eq!(heard.borrow()[0], "hello");
}

#[wasm_bindgen_test]
async fn errors_carry_their_code_message_and_data() {
    let (client, server) = pair();
    server.method("build", |_: ()| async move {
        Err::<(), _>(Error::new(code::BUILD_FAILED, "esbuild failed").with_data(&vec!["a.ts:1: x"]))
    });
    server.method("add", |Sum { a, b }: Sum| async move { Ok(a + b) });

    let error = client.request::<_, ()>("build", &()).await.unwrap_err();
    assert_eq!((error.code, error.message.as_str()), (-32001, "esbuild failed"));
    assert_eq!(error.data_as::<Vec<String>>(), Some(vec!["a.ts:1: x".to_string()]));
    let error = client.request::<_, ()>("missing", &()).await.unwrap_err();
    assert_eq!(error.code, code::METHOD_NOT_FOUND);
    let error = client.request::<_, f64>("add", &[1, 2]).await.unwrap_err();
    assert_eq!(error.code, code::INVALID_PARAMS, "{error}");
    // A result of another shape than asked is the caller's error, not a hang.
    let error = client.request::<_, String>("add", &Sum { a: 1.0, b: 1.0 }).await.unwrap_err();
    assert_eq!(error.code, code::INTERNAL_ERROR);
}

#[wasm_bindgen_test]
async fn a_call_times_out_and_a_dropped_future_cancels_its_call() {
    let (client, server) = pair();
    let aborted = Rc::new(Cell::new(0));
    let seen = aborted.clone();
    server.method_value("hang", move |call| {
        let seen = seen.clone();
        async move {
            let signal = call.signal.clone();
            let aborted = Promise::new(&mut |resolve, _| {
                signal.add_event_listener_with_callback("abort", &resolve).unwrap();
            });
            JsFuture::from(aborted).await.unwrap();
            seen.set(seen.get() + 1);
            Ok(Reply::new(JsValue::NULL))
        }
    });

    let options = CallOptions { timeout: Some(Duration::from_millis(150)), ..Default::default() };
    let error = client.request_value("slow", None, options.clone()).await.unwrap_err();
    assert_eq!(error.code, code::METHOD_NOT_FOUND);
    let started = js_sys::Date::now();
    let error = client.request_value("hang", None, options).await.unwrap_err();
    assert_eq!(error.code, code::REQUEST_TIMEOUT);
    assert!(js_sys::Date::now() - started >= 140.0);

    let call = client.request_value("hang", None, CallOptions::default());
    sleep(50).await;
    drop(call);
    until("the handler's signal", || aborted.get() == 1).await;
    // A call that timed out is not cancelled (the core's rule, as in JS): its handler ran on.
    sleep(100).await;
    assert_eq!(aborted.get(), 1);
}

#[wasm_bindgen_test]
async fn the_other_side_destroyed_fails_a_waiting_call_with_connection_closed() {
    let (client, server) = pair();
    server.method_value("hang", |_| std::future::pending());
    server.method("ping", |()| async { Ok("pong") });
    assert_eq!(client.request::<_, String>("ping", &()).await.unwrap(), "pong");
    let call = client.request_value(
        "hang",
        None,
        CallOptions { timeout: Some(Duration::from_secs(20)), ..Default::default() },
    );
    sleep(300).await; // its presence seen held
    let started = js_sys::Date::now();
    drop(server);
    let error = call.await.unwrap_err();
    assert_eq!(error.code, code::CONNECTION_CLOSED);
    assert!(js_sys::Date::now() - started < 1000.0, "noticed within a second");
}

#[wasm_bindgen_test]
async fn destroy_fails_pending_calls_and_closes_the_port() {
    let (client, server) = pair();
    server.method_value("hang", |_| std::future::pending());
    let call = client.request_value("hang", None, CallOptions::default());
    client.destroy();
    assert_eq!(call.await.unwrap_err().code, code::DESTROYED);
    let error = client.request::<_, ()>("hang", &()).await.unwrap_err();
    assert_eq!(error.code, code::DESTROYED);
    drop(server);
}

#[wasm_bindgen_test]
async fn js_values_cross_untouched_and_transfer_lists_move_buffers() {
    let (client, server) = pair();
    server.method_value("inspect", |call| async move {
        let params = call.params.unwrap();
        let buffer: ArrayBuffer = Reflect::get(&params, &"buffer".into()).unwrap().dyn_into().unwrap();
        let blob = Reflect::get(&params, &"blob".into()).unwrap();
        let port: MessagePort = Reflect::get(&params, &"port".into()).unwrap().dyn_into().unwrap();
        port.post_message(&"through the port".into()).unwrap();
        let answer = Uint8Array::new_with_length(4);
        answer.copy_from(&[9, 8, 7, 6]);
        let reply = Array::of3(&buffer.byte_length().into(), &blob.is_instance_of::<Blob>().into(), &answer.buffer());
        Ok(Reply::with_transfer(reply.clone().into(), vec![answer.buffer().into()]))
    });

    let buffer = ArrayBuffer::new(1024);
    let blob = Blob::new_with_str_sequence(&Array::of1(&"text".into())).unwrap();
    let (port, seen, other) = raw();
    drop(port);
    let params = js_sys::Object::new();
    Reflect::set(&params, &"buffer".into(), &buffer).unwrap();
    Reflect::set(&params, &"blob".into(), &blob).unwrap();
    Reflect::set(&params, &"port".into(), &other).unwrap();
    let options = CallOptions { transfer: vec![buffer.clone().into(), other.clone().into()], ..Default::default() };
    let reply: Array = client.request_value("inspect", Some(params.into()), options).await.unwrap().dyn_into().unwrap();
    assert_eq!(buffer.byte_length(), 0, "the buffer moved, not copied");
    assert_eq!(reply.get(0).as_f64(), Some(1024.0));
    assert_eq!(reply.get(1).as_bool(), Some(true), "a Blob arrives a Blob");
    let answer = Uint8Array::new(&reply.get(2));
    assert_eq!(answer.to_vec(), vec![9, 8, 7, 6]);
    until("the port's message", || seen.borrow().iter().any(|m| m == "\"through the port\"")).await;
    drop(server);
}

#[wasm_bindgen_test]
async fn a_stranger_sees_plain_json_rpc_and_bad_input_gets_the_spec_s_errors() {
    let (port, seen, other) = raw();
    let peer = Peer::new(transport::port(other));
    peer.method("echo", |value: serde_json_like::Any| async move { Ok(value) });
    // Its hello first: a notification, which a stranger ignores.
    until("the hello", || seen.borrow().len() == 1).await;
    assert!(seen.borrow()[0].contains("\"method\":\"$/ready\""), "{}", seen.borrow()[0]);
    // A request as the spec has it (no batch toward a peer that said nothing).
    let call = peer.request_value("m", Some(Array::of1(&1.into()).into()), CallOptions::default());
    until("the request", || seen.borrow().len() == 2).await;
    assert_eq!(seen.borrow()[1], r#"{"jsonrpc":"2.0","method":"m","params":[1],"id":1}"#);
    port.post_message(&JSON::parse(r#"{"jsonrpc":"2.0","result":"ok","id":1}"#).unwrap()).unwrap();
    assert_eq!(call.await.unwrap().as_string().as_deref(), Some("ok"));

    for (sent, answer) in [
        (
            r#"{"jsonrpc":"2.0","method":5,"id":7}"#,
            r#"{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request"},"id":7}"#,
        ),
        (r#"[]"#, r#"{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request"},"id":null}"#),
        (
            r#"{"jsonrpc":"2.0","method":"echo","params":3,"id":8}"#,
            r#"{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request"},"id":8}"#,
        ),
        (r#"{"jsonrpc":"2.0","method":"echo","params":[3],"id":"x"}"#, r#"{"jsonrpc":"2.0","result":[3],"id":"x"}"#),
    ] {
        let before = seen.borrow().len();
        port.post_message(&JSON::parse(sent).unwrap()).unwrap();
        until(sent, || seen.borrow().len() == before + 1).await;
        assert_eq!(seen.borrow()[before], answer, "{sent}");
    }
    // Not JSON-RPC: left alone, no answer.
    let before = seen.borrow().len();
    port.post_message(&JSON::parse(r#"{"hello":1}"#).unwrap()).unwrap();
    sleep(100).await;
    assert_eq!(seen.borrow().len(), before);
}

#[wasm_bindgen_test]
async fn without_a_handshake_a_peer_sends_no_hello() {
    let (_port, seen, other) = raw();
    let peer = Peer::new(transport::port(other).without_handshake());
    peer.notify("first", &()).unwrap();
    until("the notification", || seen.borrow().len() == 1).await;
    assert_eq!(seen.borrow()[0], r#"{"jsonrpc":"2.0","method":"first"}"#);
}

/// Any JSON value, for a handler that echoes what it gets.
mod serde_json_like {
    use serde::{Deserialize, Serialize};

    #[derive(Serialize, Deserialize)]
    #[serde(untagged)]
    pub enum Any {
        Null,
        Bool(bool),
        Number(f64),
        Text(String),
        List(Vec<Any>),
    }
}
