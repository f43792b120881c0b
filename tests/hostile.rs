//! Native tests of what the core does toward a peer it cannot trust: ids that
//! cannot be echoed exactly, thrown values and the codes they keep, and the
//! limits (batch length, calls in flight, text refused before parsing) that
//! keep one peer from stalling or bloating the others.
#![cfg(not(target_arch = "wasm32"))]

use serde_json::{json, Value as Json};
use wiggum_rpc::core::{
    code, json as wire, thrown_error, Action, BatchPolicy, Batching, Config, Dispatcher, Endpoint, ErrorObject, Event,
    Framing, Handshake, Id, Kind, Limits, Outgoing, Roles, TextRefusal, Transmit, Value,
};

/// A structured clone's value, as far as the envelope rules read it: unlike
/// JSON, it carries `NaN` and `±Infinity`.
#[derive(Clone, Debug, PartialEq)]
enum Cloned {
    Number(f64),
    Text(&'static str),
    Object(Vec<(&'static str, Cloned)>),
    Array(Vec<Cloned>),
}

impl Value for Cloned {
    fn kind(&self) -> Kind {
        match self {
            Cloned::Number(_) => Kind::Number,
            Cloned::Text(_) => Kind::String,
            Cloned::Object(_) => Kind::Object,
            Cloned::Array(_) => Kind::Array,
        }
    }
    fn member(&self, name: &str) -> Option<Self> {
        match self {
            Cloned::Object(members) => members.iter().find(|(key, _)| *key == name).map(|(_, v)| v.clone()),
            _ => None,
        }
    }
    fn as_text(&self) -> Option<String> {
        match self {
            Cloned::Text(text) => Some((*text).to_owned()),
            _ => None,
        }
    }
    fn as_number(&self) -> Option<f64> {
        match self {
            Cloned::Number(n) => Some(*n),
            _ => None,
        }
    }
    fn as_bool(&self) -> Option<bool> {
        None
    }
    fn elements(&self) -> Vec<Self> {
        match self {
            Cloned::Array(elements) => elements.clone(),
            _ => Vec::new(),
        }
    }
    fn object_of(name: &'static str, value: Self) -> Self {
        Cloned::Object(vec![(name, value)])
    }
    fn empty_array() -> Self {
        Cloned::Array(Vec::new())
    }
    fn number(value: f64) -> Self {
        Cloned::Number(value)
    }
    fn string(text: &'static str) -> Self {
        Cloned::Text(text)
    }
    fn flags<'a>(names: impl Iterator<Item = &'a str>) -> Self {
        // Names outlive the test that made them: leaked, as the type holds only static text.
        Cloned::Object(names.map(|name| (&*Box::leak(name.to_owned().into_boxed_str()), Cloned::Number(1.0))).collect())
    }
    fn with_member(&self, name: &'static str, value: Self) -> Self {
        match self {
            Cloned::Object(members) => {
                let mut members: Vec<_> = members.iter().filter(|(key, _)| *key != name).cloned().collect();
                members.push((name, value));
                Cloned::Object(members)
            }
            other => other.clone(),
        }
    }
}

fn request_with_id(id: Cloned) -> Cloned {
    Cloned::Object(vec![("jsonrpc", Cloned::Text("2.0")), ("method", Cloned::Text("echo")), ("id", id)])
}

#[test]
fn ids_json_cannot_carry_are_refused_with_id_null() {
    for id in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY, 2f64.powi(60), -1e30] {
        let mut server: Dispatcher<Cloned, ()> = Dispatcher::new(Roles::SERVER);
        server.set_method("echo", ());
        let actions = server.receive(&request_with_id(Cloned::Number(id)), Framing::Object);
        let [Action::Send(Outgoing::Single(reply))] = actions.as_slice() else { panic!("{id}: {actions:?}") };
        assert_eq!(reply.id, None, "{id}: refused with id null");
        assert_eq!(reply.payload.as_ref().unwrap_err().code, code::INVALID_REQUEST, "{id}");
    }
    // What JSON carries exactly is served.
    for id in [0.0, -1.0, 0.5, 9_007_199_254_740_991.0] {
        let mut server: Dispatcher<Cloned, ()> = Dispatcher::new(Roles::SERVER);
        server.set_method("echo", ());
        let actions = server.receive(&request_with_id(Cloned::Number(id)), Framing::Object);
        assert!(matches!(actions.as_slice(), [Action::Call { .. }]), "{id}: {actions:?}");
    }
}

#[test]
fn text_ids_are_echoed_exactly_or_refused() {
    let mut server: Dispatcher<Json, ()> = Dispatcher::new(Roles::SERVER);
    server.set_method("echo", ());
    let refused = |server: &mut Dispatcher<Json, ()>, text: &str| {
        let value = wire::parse(text).unwrap();
        match server.receive(&value, Framing::Text).as_slice() {
            [Action::Send(out)] => Some(wire::outgoing(out)),
            _ => None,
        }
    };
    // serde_json holds 64-bit integers exactly: echoed as they came.
    assert!(refused(&mut server, r#"{"jsonrpc":"2.0","method":"echo","id":9007199254740993}"#).is_none());
    // Past 64 bits it holds a rounded double: refused, never answered with another id.
    let reply = refused(&mut server, r#"{"jsonrpc":"2.0","method":"echo","id":100000000000000000000000000001}"#);
    assert_eq!(reply, Some(json!({"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request"},"id":null})));
}

#[test]
fn a_thrown_value_keeps_its_integer_code() {
    let cases = [
        // An RPCError, or an Error with the fields set, or a plain object.
        (
            json!({"code": -32001, "message": "Build failed", "data": {"file": "a.ts"}}),
            -32001,
            "Build failed",
            Some(json!({"file": "a.ts"})),
        ),
        (json!({"code": 42, "message": "Custom"}), 42, "Custom", None),
        // A code without a message gets its code's message.
        (json!({"code": -32602}), -32602, "Invalid params", None),
        // A code that is not an integer is not a code.
        (json!({"code": "ENOENT", "message": "no file"}), -32603, "no file", None),
        (json!({"code": 1.5, "message": "odd"}), -32603, "odd", None),
        (json!({"message": "plain"}), -32603, "plain", None),
        (json!({"message": ""}), -32603, "Internal error", None),
        (json!("a string"), -32603, "a string", None),
        (json!({"reason": 1}), -32603, "Internal error", Some(json!({"reason": 1}))),
        (json!(7), -32603, "Internal error", Some(json!(7))),
    ];
    for (thrown, code, message, data) in cases {
        let error = thrown_error(&thrown, || None);
        assert_eq!(error, ErrorObject { code, message: message.into(), data }, "{thrown}");
    }
}

#[test]
fn a_thrown_error_travels_whole_and_an_explicit_code_exactly() {
    let whole = json!({"name": "TypeError", "message": "bad", "cause": {"name": "RangeError", "message": "root"}, "fields": {"file": "a.ts"}});
    // An error without a code: its message, and the whole of it as data.
    let error = thrown_error(&json!({"message": "bad", "name": "TypeError"}), || Some(whole.clone()));
    assert_eq!(error, ErrorObject { code: -32603, message: "bad".into(), data: Some(whole.clone()) });
    // An explicit code keeps its own data, whatever the host could describe.
    let explicit = json!({"code": -32001, "message": "Build failed", "data": {"file": "b.ts"}});
    let error = thrown_error(&explicit, || Some(whole.clone()));
    assert_eq!(error.data, Some(json!({"file": "b.ts"})));
    // A plain object or a value is its own data, as before.
    assert_eq!(thrown_error(&json!({"reason": 1}), || Some(whole.clone())).data, Some(json!({"reason": 1})));
    assert_eq!(thrown_error(&json!("text"), || Some(whole.clone())).data, None);
}

fn answered(actions: Vec<Action<Json, ()>>) -> Vec<Json> {
    actions
        .iter()
        .filter_map(|a| match a {
            Action::Send(out) => Some(wire::outgoing(out)),
            _ => None,
        })
        .collect()
}

#[test]
fn calls_in_flight_past_the_limit_are_refused_and_the_rest_go_on() {
    let mut server: Dispatcher<Json, ()> = Dispatcher::new(Roles::SERVER);
    server.set_method("later", ());
    server.set_max_in_flight(2);
    let call = |id: u32| json!({"jsonrpc": "2.0", "method": "later", "id": id});
    let mut running = Vec::new();
    for id in 1..=3 {
        for action in server.receive(&call(id), Framing::Text) {
            match action {
                Action::Call { call, .. } => running.push(call),
                Action::Send(out) => assert_eq!(
                    wire::outgoing(&out),
                    json!({"jsonrpc":"2.0","error":{"code":code::TOO_MANY_CALLS,"message":"Too many calls in flight"},"id":3})
                ),
                other => panic!("{other:?}"),
            }
        }
    }
    assert_eq!(running.len(), 2, "the third was refused");
    // One finishes: the next call is served again.
    let done = server.complete(running.remove(0), Ok(json!(1))).map(|out| wire::outgoing(&out));
    assert_eq!(done, Some(json!({"jsonrpc":"2.0","result":1,"id":1})));
    assert!(matches!(server.receive(&call(4), Framing::Text).as_slice(), [Action::Call { .. }]));
    // At the limit again, a batch's members are refused one by one, in one array.
    let batch = Json::Array((5..8).map(call).collect());
    let reply = answered(server.receive(&batch, Framing::Text));
    let codes: Vec<Json> = reply[0].as_array().unwrap().iter().map(|r| r["error"]["code"].clone()).collect();
    assert_eq!(codes, vec![json!(code::TOO_MANY_CALLS); 3]);
}

#[test]
fn a_batch_past_the_default_limit_gets_one_invalid_request() {
    let mut endpoint: Endpoint<Json, (), u32> = Endpoint::new(Config::new(Roles::SERVER));
    endpoint.set_method("echo", ());
    let call = |id: usize| json!({"jsonrpc": "2.0", "method": "echo", "id": id});
    endpoint.receive(&Json::Array((0..Limits::MAX_BATCH + 1).map(call).collect()), Framing::Text);
    let mut sent = Vec::new();
    while let Some(event) = endpoint.poll() {
        match event {
            Event::Transmit(transmit) => sent.push(wire::transmit(&transmit)),
            Event::Invoke { .. } => panic!("no handler runs for a batch refused whole"),
            _ => {}
        }
    }
    assert_eq!(sent, [json!({"jsonrpc":"2.0","error":{"code":-32600,"message":"Batch too large"},"id":null})]);
}

#[test]
fn text_not_read_gets_its_error_with_id_null() {
    for (refusal, code, message) in [
        (TextRefusal::NotJson, -32700, "Parse error"),
        (TextRefusal::TooLarge, -32600, "Message too large"),
        (TextRefusal::TooDeep, -32600, "Message nested too deeply"),
        (TextRefusal::NotText, -32700, "Parse error: not text (send JSON text)"),
    ] {
        let mut endpoint: Endpoint<Json, (), u32> = Endpoint::new(Config::new(Roles::PEER));
        endpoint.receive_refused(refusal);
        let sent: Vec<Json> = std::iter::from_fn(|| endpoint.poll())
            .filter_map(|event| match event {
                Event::Transmit(transmit) => Some(wire::transmit(&transmit)),
                _ => None,
            })
            .collect();
        assert_eq!(sent, [json!({"jsonrpc":"2.0","error":{"code":code,"message":message},"id":null})]);
        // A client alone answers nothing: the text was not a request of its peer's.
        let mut client: Endpoint<Json, (), u32> = Endpoint::new(Config::new(Roles::CLIENT));
        client.receive_refused(refusal);
        let answered = std::iter::from_fn(|| client.poll()).any(|event| matches!(event, Event::Transmit(_)));
        assert!(!answered, "{refusal:?}");
    }
}

/// Sends `calls` calls in one turn toward a peer that announced `max_batch`;
/// returns the lengths of what went out (1 for a message alone).
fn burst_toward(max_batch: Option<usize>, calls: u32) -> Vec<usize> {
    let mut client: Endpoint<Json, (), u32> =
        Endpoint::new(Config { batching: Batching::Negotiated, ..Config::new(Roles::CLIENT) });
    let mut capabilities = json!({"ack": true, "batches": true, "splitBatchAnswers": true});
    if let Some(most) = max_batch {
        capabilities["maxBatch"] = json!(most);
    }
    client.receive(&json!({"jsonrpc": "2.0", "method": "$/ready", "params": capabilities}), Framing::Object);
    for n in 0..calls {
        client.request(json!("echo"), Some(json!([n])), n, None, || 0);
    }
    let mut lengths = Vec::new();
    loop {
        let mut flush = false;
        while let Some(event) = client.poll() {
            match event {
                Event::Transmit(Transmit::Batch(batch)) => lengths.push(batch.len()),
                Event::Transmit(Transmit::Single(_)) => lengths.push(1),
                Event::ScheduleFlush => flush = true,
                _ => {}
            }
        }
        if !flush {
            return lengths;
        }
        client.flush();
    }
}

#[test]
fn a_burst_is_cut_into_batches_the_peer_answers() {
    assert_eq!(burst_toward(Some(2), 6), [1, 2, 2, 1], "the first alone, then at most two per batch");
    assert_eq!(burst_toward(Some(1), 3), [1, 1, 1], "a peer that answers batches of one gets messages alone");
    let lengths = burst_toward(None, 2_500);
    assert_eq!(lengths, [1, 1_000, 1_000, 499], "our default limit toward a peer that named none");
}

#[test]
fn calls_held_for_a_frame_go_once_it_is_present() {
    let mut client: Endpoint<Json, (), u32> =
        Endpoint::new(Config { handshake: Handshake::Hold, ..Config::new(Roles::CLIENT) });
    client.request(json!("echo"), None, 1, None, || 0);
    let sent = |client: &mut Endpoint<Json, (), u32>| {
        std::iter::from_fn(|| client.poll())
            .filter_map(|event| match event {
                Event::Transmit(transmit) => Some(wire::transmit(&transmit)),
                _ => None,
            })
            .collect::<Vec<_>>()
    };
    let hello = sent(&mut client);
    assert_eq!(hello.len(), 1, "only the hello: the call is held");
    client.peer_present();
    let out = sent(&mut client);
    assert_eq!(out.len(), 1);
    assert_eq!(out[0]["method"], json!("echo"), "sent alone, as to a stranger");
}

#[test]
fn a_server_refusing_batches_says_so() {
    let config =
        Config { batch_policy: BatchPolicy::Reject, handshake: Handshake::Announce, ..Config::new(Roles::PEER) };
    let mut endpoint: Endpoint<Json, (), u32> = Endpoint::new(config);
    let Some(Event::Transmit(hello)) = endpoint.poll() else { panic!("a hello first") };
    assert_eq!(
        wire::transmit(&hello)["params"],
        json!({"ack": false, "batches": false, "splitBatchAnswers": true, "maxBatch": 0, "streamCredit": true, "progress": true})
    );
}

#[test]
fn an_id_is_made_only_from_what_the_spec_allows() {
    let read = |value: Json| {
        let kind = value.kind();
        Id::read(value, kind)
    };
    for valid in [json!(null), json!(0), json!(-7), json!(0.5), json!(""), json!("1"), json!(9007199254740993u64)] {
        assert_eq!(read(valid.clone()).map(Id::into_value), Some(valid.clone()), "{valid}: kept as it came");
    }
    for invalid in [json!(true), json!({}), json!([1]), json!(1e300)] {
        assert!(read(invalid.clone()).is_none(), "{invalid}");
    }
    assert_ne!(read(json!(1)), read(json!("1")), "1 and \"1\" are different ids");
    assert!(Id::read(Cloned::Number(f64::NAN), Kind::Number).is_none());
}
