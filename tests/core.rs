//! Native tests of the protocol core: every example of section 7 of the
//! JSON-RPC 2.0 specification, the envelope rules, batches, the pending table
//! on a fake clock, and a property test that no input panics.
#![cfg(not(target_arch = "wasm32"))]

use std::rc::Rc;

use proptest::prelude::*;
use serde_json::{json, Value as Json};
use wiggum_rpc::core::{
    classify_envelope, code, json as wire, Action, Backoff, Capabilities, Dispatcher, Due, Envelope, ErrorObject,
    Framing, Id, IdMember, Inbound, Kind, Outgoing, PendingTable, Response, Roles, TextRefusal,
};

type Outcome = Result<Json, ErrorObject<Json>>;

/// A handler of the native test server.
#[derive(Clone)]
struct Handler(Rc<dyn Fn(Option<Json>) -> Outcome>);

impl std::fmt::Debug for Handler {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Handler")
    }
}

fn handler(f: impl Fn(Option<Json>) -> Outcome + 'static) -> Handler {
    Handler(Rc::new(f))
}

/// The server of the spec's examples: `subtract`, `sum`, `get_data`, and the
/// notifications `update` and `foobar`.
fn spec_server() -> Dispatcher<Json, Handler> {
    let mut server = Dispatcher::new(Roles::SERVER);
    server.set_method(
        "subtract",
        handler(|params| match params {
            Some(Json::Array(p)) => Ok(json!(p[0].as_i64().unwrap() - p[1].as_i64().unwrap())),
            Some(Json::Object(p)) => Ok(json!(p["minuend"].as_i64().unwrap() - p["subtrahend"].as_i64().unwrap())),
            _ => Err(ErrorObject::standard(code::INVALID_PARAMS)),
        }),
    );
    server.set_method(
        "sum",
        handler(|params| {
            Ok(json!(params.unwrap().as_array().unwrap().iter().map(|v| v.as_i64().unwrap()).sum::<i64>()))
        }),
    );
    server.set_method("get_data", handler(|_| Ok(json!(["hello", 5]))));
    server.set_notification("update", handler(|_| Ok(Json::Null)));
    server.set_notification("foobar", handler(|_| Ok(Json::Null)));
    server
}

/// Feeds one text message to a server and runs handlers synchronously, as a
/// host would; returns what it sends back, if anything.
fn serve(server: &mut Dispatcher<Json, Handler>, text: &str) -> Option<Json> {
    let actions = match wire::parse(text) {
        Some(value) => server.receive(&value, Framing::Text),
        None => server.receive_refused(TextRefusal::NotJson),
    };
    let mut sent = Vec::new();
    for action in actions {
        match action {
            Action::Send(out) => sent.push(wire::outgoing(&out)),
            Action::Call { call, handler, params, .. } => {
                if let Some(out) = server.complete(call, (handler.0)(params)) {
                    sent.push(wire::outgoing(&out));
                }
            }
            Action::Notify { handler, params } => {
                (handler.0)(params).unwrap();
            }
            Action::Settle { .. }
            | Action::Chunk { .. }
            | Action::StreamEnd { .. }
            | Action::Ready { .. }
            | Action::Progress { .. } => {
                panic!("a server settles nothing")
            }
            Action::Unhandled { .. } | Action::Cancel { .. } | Action::Credit { .. } | Action::SessionAck { .. } => {}
            #[cfg(feature = "references")]
            Action::Release { .. } | Action::CallReference { .. } | Action::Refs(_) => {}
        }
    }
    assert!(sent.len() <= 1, "one message in, at most one reply out: {sent:?}");
    assert!(server.is_clean(), "a synchronous server leaves nothing in flight");
    sent.pop()
}

fn assert_serves(input: &str, expected: Option<Json>) {
    let mut server = spec_server();
    assert_eq!(serve(&mut server, input), expected, "input: {input}");
}

#[test]
fn spec_rpc_call_with_positional_parameters() {
    assert_serves(
        r#"{"jsonrpc": "2.0", "method": "subtract", "params": [42, 23], "id": 1}"#,
        Some(json!({"jsonrpc": "2.0", "result": 19, "id": 1})),
    );
    assert_serves(
        r#"{"jsonrpc": "2.0", "method": "subtract", "params": [23, 42], "id": 2}"#,
        Some(json!({"jsonrpc": "2.0", "result": -19, "id": 2})),
    );
}

#[test]
fn spec_rpc_call_with_named_parameters() {
    assert_serves(
        r#"{"jsonrpc": "2.0", "method": "subtract", "params": {"subtrahend": 23, "minuend": 42}, "id": 3}"#,
        Some(json!({"jsonrpc": "2.0", "result": 19, "id": 3})),
    );
    assert_serves(
        r#"{"jsonrpc": "2.0", "method": "subtract", "params": {"minuend": 42, "subtrahend": 23}, "id": 4}"#,
        Some(json!({"jsonrpc": "2.0", "result": 19, "id": 4})),
    );
}

#[test]
fn spec_notification() {
    assert_serves(r#"{"jsonrpc": "2.0", "method": "update", "params": [1,2,3,4,5]}"#, None);
    assert_serves(r#"{"jsonrpc": "2.0", "method": "foobar"}"#, None);
}

#[test]
fn spec_rpc_call_of_non_existent_method() {
    assert_serves(
        r#"{"jsonrpc": "2.0", "method": "foobar", "id": "1"}"#,
        Some(json!({"jsonrpc": "2.0", "error": {"code": -32601, "message": "Method not found"}, "id": "1"})),
    );
}

#[test]
fn spec_rpc_call_with_invalid_json() {
    assert_serves(
        r#"{"jsonrpc": "2.0", "method": "foobar, "params": "bar", "baz]"#,
        Some(json!({"jsonrpc": "2.0", "error": {"code": -32700, "message": "Parse error"}, "id": null})),
    );
}

#[test]
fn spec_rpc_call_with_invalid_request_object() {
    assert_serves(
        r#"{"jsonrpc": "2.0", "method": 1, "params": "bar"}"#,
        Some(json!({"jsonrpc": "2.0", "error": {"code": -32600, "message": "Invalid Request"}, "id": null})),
    );
}

#[test]
fn spec_rpc_call_batch_invalid_json() {
    assert_serves(
        r#"[
  {"jsonrpc": "2.0", "method": "sum", "params": [1,2,4], "id": "1"},
  {"jsonrpc": "2.0", "method"
]"#,
        Some(json!({"jsonrpc": "2.0", "error": {"code": -32700, "message": "Parse error"}, "id": null})),
    );
}

#[test]
fn spec_rpc_call_with_an_empty_array() {
    assert_serves(
        "[]",
        Some(json!({"jsonrpc": "2.0", "error": {"code": -32600, "message": "Invalid Request"}, "id": null})),
    );
}

#[test]
fn spec_rpc_call_with_an_invalid_batch_but_not_empty() {
    assert_serves(
        "[1]",
        Some(json!([{"jsonrpc": "2.0", "error": {"code": -32600, "message": "Invalid Request"}, "id": null}])),
    );
}

#[test]
fn spec_rpc_call_with_invalid_batch() {
    let invalid = json!({"jsonrpc": "2.0", "error": {"code": -32600, "message": "Invalid Request"}, "id": null});
    assert_serves("[1,2,3]", Some(json!([invalid, invalid, invalid])));
}

#[test]
fn spec_rpc_call_batch() {
    assert_serves(
        r#"[
        {"jsonrpc": "2.0", "method": "sum", "params": [1,2,4], "id": "1"},
        {"jsonrpc": "2.0", "method": "notify_hello", "params": [7]},
        {"jsonrpc": "2.0", "method": "subtract", "params": [42,23], "id": "2"},
        {"foo": "boo"},
        {"jsonrpc": "2.0", "method": "foo.get", "params": {"name": "myself"}, "id": "5"},
        {"jsonrpc": "2.0", "method": "get_data", "id": "9"}
    ]"#,
        Some(json!([
            {"jsonrpc": "2.0", "result": 7, "id": "1"},
            {"jsonrpc": "2.0", "result": 19, "id": "2"},
            {"jsonrpc": "2.0", "error": {"code": -32600, "message": "Invalid Request"}, "id": null},
            {"jsonrpc": "2.0", "error": {"code": -32601, "message": "Method not found"}, "id": "5"},
            {"jsonrpc": "2.0", "result": ["hello", 5], "id": "9"}
        ])),
    );
}

#[test]
fn spec_rpc_call_batch_all_notifications() {
    assert_serves(
        r#"[
        {"jsonrpc": "2.0", "method": "notify_sum", "params": [1,2,4]},
        {"jsonrpc": "2.0", "method": "notify_hello", "params": [7]}
    ]"#,
        None,
    );
}

#[test]
fn a_batch_of_one_is_still_an_array() {
    assert_serves(
        r#"[{"jsonrpc": "2.0", "method": "get_data", "id": 7}]"#,
        Some(json!([{"jsonrpc": "2.0", "result": ["hello", 5], "id": 7}])),
    );
}

#[test]
fn ids_are_echoed_exactly() {
    for id in [json!(1), json!("1"), json!(null), json!(-0.5), json!(""), json!("ünï©ødé"), json!(9007199254740993u64)]
    {
        let request = json!({"jsonrpc": "2.0", "method": "get_data", "id": id});
        let reply = serve(&mut spec_server(), &request.to_string()).unwrap();
        assert_eq!(reply["id"], id);
        assert_eq!(reply["id"].is_string(), id.is_string(), "1 and \"1\" stay apart");
    }
}

#[test]
fn envelope_rules_answer_invalid_request() {
    let cases = [
        json!("a string"),
        json!(42),
        json!(null),
        json!(true),
        json!({"method": "get_data", "id": 1}),
        json!({"jsonrpc": "1.0", "method": "get_data", "id": 1}),
        json!({"jsonrpc": 2.0, "method": "get_data", "id": 1}),
        json!({"jsonrpc": "2.0", "method": null, "id": 1}),
        json!({"jsonrpc": "2.0", "method": "get_data", "params": 3, "id": 1}),
        json!({"jsonrpc": "2.0", "method": "get_data", "params": "x", "id": 1}),
        json!({"jsonrpc": "2.0", "method": "get_data", "params": null, "id": 1}),
        json!({"jsonrpc": "2.0", "method": "get_data", "id": {}}),
        json!({"jsonrpc": "2.0", "method": "get_data", "id": [1]}),
        json!({"jsonrpc": "2.0", "method": "get_data", "id": false}),
        json!({"jsonrpc": "2.0", "id": 1}),
    ];
    for case in cases {
        let reply = serve(&mut spec_server(), &case.to_string()).unwrap();
        assert_eq!(reply["error"]["code"], json!(-32600), "{case}");
        assert_eq!(reply["error"]["message"], json!("Invalid Request"), "{case}");
        // An id that could be read is echoed; one that could not is null.
        let readable = case.get("id").filter(|id| id.is_number() || id.is_string() || id.is_null());
        assert_eq!(reply["id"], readable.cloned().unwrap_or(Json::Null), "{case}");
    }
}

#[test]
fn only_registered_names_are_methods() {
    for name in ["toString", "constructor", "__proto__", "hasOwnProperty", "update"] {
        let request = json!({"jsonrpc": "2.0", "method": name, "id": 1});
        let reply = serve(&mut spec_server(), &request.to_string()).unwrap();
        assert_eq!(reply["error"]["code"], json!(code::METHOD_NOT_FOUND), "{name}");
    }
}

#[test]
fn handler_errors_carry_code_and_data() {
    let mut server = spec_server();
    server.set_method(
        "build",
        handler(|_| Err(ErrorObject::new(code::BUILD_FAILED, "Build failed").with_data(json!([{"line": 3}])))),
    );
    let reply = serve(&mut server, r#"{"jsonrpc":"2.0","method":"build","id":1}"#).unwrap();
    assert_eq!(
        reply,
        json!({"jsonrpc":"2.0","error":{"code":-32001,"message":"Build failed","data":[{"line":3}]},"id":1})
    );
    let reply = serve(&mut server, r#"{"jsonrpc":"2.0","method":"subtract","params":"x","id":2}"#).unwrap();
    assert_eq!(reply["error"]["code"], json!(-32600), "params must be structured");
    let reply = serve(&mut server, r#"{"jsonrpc":"2.0","method":"subtract","id":2}"#).unwrap();
    assert_eq!(reply["error"]["code"], json!(code::INVALID_PARAMS));
}

#[test]
fn responses_are_never_answered_by_a_server() {
    for text in [
        r#"{"jsonrpc":"2.0","result":1,"id":1}"#,
        r#"{"jsonrpc":"2.0","error":{"code":1,"message":"x"},"id":1}"#,
        r#"[{"jsonrpc":"2.0","result":1,"id":1},{"jsonrpc":"2.0","result":2,"id":2}]"#,
    ] {
        assert_serves(text, None);
    }
}

#[test]
fn object_framing_ignores_foreign_traffic() {
    let mut peer: Dispatcher<Json, Handler> = Dispatcher::new(Roles::PEER);
    for foreign in [json!({"type": "build"}), json!("text"), json!(3), json!(null), json!({"jsonrpc": "1.0", "id": 1})]
    {
        assert!(peer.receive(&foreign, Framing::Object).is_empty(), "{foreign}");
    }
    // An array is a batch, and so ours.
    assert_eq!(peer.receive(&json!([1]), Framing::Object).len(), 1);
}

#[test]
fn async_batch_replies_once_every_call_completed_in_request_order() {
    let mut server: Dispatcher<Json, Handler> = Dispatcher::new(Roles::SERVER);
    server.set_method("echo", handler(|p| Ok(p.unwrap_or(Json::Null))));
    let batch = json!([
        {"jsonrpc":"2.0","method":"echo","params":["a"],"id":1},
        {"jsonrpc":"2.0","method":"nope","id":2},
        {"jsonrpc":"2.0","method":"echo","params":["c"],"id":3}
    ]);
    let actions = server.receive(&batch, Framing::Text);
    let calls: Vec<_> = actions
        .into_iter()
        .map(|a| match a {
            Action::Call { call, params, .. } => (call, params.unwrap()),
            other => panic!("unexpected {other:?}"),
        })
        .collect();
    assert_eq!(calls.len(), 2);
    // Complete in reverse order: the reply still lists requests in order.
    assert!(server.complete(calls[1].0, Ok(calls[1].1.clone())).is_none());
    let Some(Outgoing::Batch(replies)) = server.complete(calls[0].0, Ok(calls[0].1.clone())) else {
        panic!("batch reply expected")
    };
    let ids: Vec<_> = replies.iter().map(|r| r.id.clone().unwrap().into_value()).collect();
    assert_eq!(ids, vec![json!(1), json!(2), json!(3)]);
    assert!(server.is_clean());
    assert!(server.complete(calls[0].0, Ok(Json::Null)).is_none(), "a call completes once");
}

#[test]
fn client_settles_only_its_own_numeric_ids() {
    let mut client: Dispatcher<Json, Handler> = Dispatcher::new(Roles::CLIENT);
    let actions = client.receive(&json!({"jsonrpc":"2.0","result":5,"id":"1"}), Framing::Object);
    let [Action::Settle { id, .. }] = actions.as_slice() else { panic!("{actions:?}") };
    assert_eq!(PendingTable::<()>::key_of(id.value().as_f64().unwrap_or(f64::NAN)), None, "\"1\" is not 1");
    assert_eq!(PendingTable::<()>::key_of(1.0), Some(1));
    assert_eq!(PendingTable::<()>::key_of(1.5), None);
    assert_eq!(PendingTable::<()>::key_of(0.0), None);
    // A client does not answer requests: a server sharing its transport may.
    assert!(client.receive(&json!({"jsonrpc":"2.0","method":"x","id":1}), Framing::Object).is_empty());
    assert!(client.receive(&json!([]), Framing::Object).is_empty());
}

#[test]
fn invalid_responses_fail_their_call() {
    let mut client: Dispatcher<Json, Handler> = Dispatcher::new(Roles::CLIENT);
    for bad in [
        json!({"jsonrpc":"2.0","result":1,"error":{"code":1,"message":"x"},"id":4}),
        json!({"jsonrpc":"2.0","error":{"code":"x","message":"x"},"id":4}),
        json!({"jsonrpc":"2.0","error":{"code":1.5,"message":"x"},"id":4}),
        json!({"jsonrpc":"2.0","error":{"code":1},"id":4}),
        json!({"jsonrpc":"2.0","error":"boom","id":4}),
    ] {
        let actions = client.receive(&bad, Framing::Object);
        match actions.as_slice() {
            [Action::Settle { id, outcome: Err(error) }] => {
                assert_eq!(id.value(), &json!(4));
                assert_eq!(error.code, code::INVALID_RESPONSE, "{bad}");
            }
            other => panic!("{bad}: {other:?}"),
        }
    }
}

#[test]
fn an_invalid_response_says_why_and_names_its_call_only_by_a_readable_id() {
    let classify = |message: Json| classify_envelope(Envelope::read(&message), Framing::Text);
    for (bad, why) in [
        (
            json!({"jsonrpc":"2.0","result":1,"error":{"code":1,"message":"x"},"id":4}),
            "Response has both result and error",
        ),
        (json!({"jsonrpc":"2.0","error":{"code":1},"id":4}), "Response has a malformed error object"),
    ] {
        match classify(bad.clone()) {
            Inbound::InvalidResponse { id: Some(id), error } => {
                assert_eq!((id.value(), error.code, error.message.as_str()), (&json!(4), code::INVALID_RESPONSE, why));
            }
            other => panic!("{bad}: {other:?}"),
        }
    }
    for bad in [json!({"jsonrpc":"2.0","result":1,"id":{}}), json!({"jsonrpc":"2.0","result":1})] {
        match classify(bad.clone()) {
            Inbound::InvalidResponse { id: None, error } => {
                assert_eq!((error.code, error.message.as_str()), (code::INVALID_RESPONSE, "Response has no valid id"));
            }
            other => panic!("{bad}: {other:?}"),
        }
    }
    // Neither result nor error: not a response, so a request's error, its id echoed.
    match classify(json!({"jsonrpc":"2.0","id":4})) {
        Inbound::Invalid(Response { id: Some(id), payload: Err(error), .. }) => {
            assert_eq!((id.value(), error.code), (&json!(4), code::INVALID_REQUEST));
        }
        other => panic!("{other:?}"),
    }
    // Without "2.0": another listener's on a shared channel, invalid on a channel of our own.
    let foreign = Envelope::read(&json!({"jsonrpc":"1.0","result":1,"id":4}));
    assert!(matches!(classify_envelope(foreign, Framing::Object), Inbound::Foreign));
    assert!(matches!(classify(json!({"jsonrpc":"1.0","result":1,"id":4})), Inbound::Invalid(_)));
}

#[test]
fn pending_table_times_out_by_deadline_and_leaves_nothing() {
    let mut table = PendingTable::new();
    let a = table.insert("a", Some(Due::At(100)));
    let b = table.insert("b", Some(Due::At(50)));
    let c = table.insert("c", None);
    assert_ne!(a, b);
    assert_eq!(table.next_deadline(), Some(50));
    assert!(table.expire(49).0.is_empty());
    assert_eq!(table.expire(50), (vec![(b, "b")], Some(100)));
    assert_eq!(table.next_deadline(), Some(100));
    assert_eq!(table.remove(a), Some("a"));
    assert_eq!(table.remove(a), None, "a call settles once");
    assert_eq!(table.next_deadline(), None, "a settled call leaves no deadline");
    assert_eq!(table.drain().collect::<Vec<_>>(), vec![(c, "c")]);
    assert!(table.is_empty());
    // The earliest deadline left, whether a call's own or its cap, comes back with what expired.
    let capped = table.insert_capped("capped", Some(Due::At(300)), Some(Due::At(250)));
    let early = table.insert("early", Some(Due::At(200)));
    assert_eq!(table.expire(100), (vec![], Some(200)));
    assert_eq!(table.expire(200), (vec![(early, "early")], Some(250)));
    assert_eq!(table.expire(250), (vec![(capped, "capped")], None));
}

#[test]
fn a_deadline_after_the_next_reading_is_never_early() {
    let mut table = PendingTable::new();
    let lazy = table.insert("lazy", Some(Due::AfterNextReading(100)));
    let fixed = table.insert("fixed", Some(Due::At(120)));
    assert_eq!(table.next_deadline(), Some(120), "an unread call has no deadline yet");
    // The reading at 30 (30.0 to 30.999 ms) gives the lazy call 131.
    assert_eq!(table.expire(30), (vec![], Some(120)));
    assert_eq!(table.expire(120), (vec![(fixed, "fixed")], Some(131)));
    assert_eq!(table.expire(130), (vec![], Some(131)), "not before start + timeout");
    assert_eq!(table.expire(131), (vec![(lazy, "lazy")], None));
    // A call made after a reading waits for the next one.
    let late = table.insert("late", Some(Due::AfterNextReading(5)));
    assert_eq!(table.expire(1_000), (vec![], Some(1_006)));
    assert_eq!(table.expire(u64::MAX), (vec![(late, "late")], None));
    let huge = table.insert("huge", Some(Due::AfterNextReading(u64::MAX)));
    assert_eq!(table.expire(7), (vec![], Some(u64::MAX)), "saturates");
    assert_eq!(table.remove(huge), Some("huge"));
}

#[test]
fn pending_table_under_load_on_a_fake_clock() {
    let mut table = PendingTable::new();
    let mut now = 0;
    let mut settled = 0;
    for round in 0..10_000u64 {
        let id = table.insert(round, Some(Due::At(now + 10)));
        if round % 3 == 0 {
            assert_eq!(table.remove(id), Some(round));
            settled += 1;
        }
        now += 1;
        settled += table.expire(now).0.len();
    }
    now += 10;
    settled += table.expire(now).0.len();
    assert_eq!(settled, 10_000);
    assert!(table.is_empty());
    assert_eq!(table.next_deadline(), None);
}

fn json_value() -> impl Strategy<Value = Json> {
    let leaf = prop_oneof![
        Just(Json::Null),
        any::<bool>().prop_map(Json::from),
        any::<i64>().prop_map(Json::from),
        any::<f64>().prop_filter("finite", |f| f.is_finite()).prop_map(Json::from),
        prop_oneof![Just("2.0".to_owned()), Just("sum".to_owned()), ".*".prop_map(String::from)].prop_map(Json::from),
    ];
    leaf.prop_recursive(4, 32, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..5).prop_map(Json::Array),
            prop::collection::btree_map(
                prop_oneof![
                    Just("jsonrpc".to_owned()),
                    Just("method".to_owned()),
                    Just("params".to_owned()),
                    Just("id".to_owned()),
                    Just("result".to_owned()),
                    Just("error".to_owned()),
                    "[a-z]{1,3}".prop_map(String::from)
                ],
                inner,
                0..6
            )
            .prop_map(|m| Json::Object(m.into_iter().collect())),
        ]
    })
}

fn is_valid_response(value: &Json) -> bool {
    let Some(object) = value.as_object() else {
        return false;
    };
    let id_ok = matches!(object.get("id"), Some(Json::Null | Json::Number(_) | Json::String(_)));
    let payload_ok = match (object.get("result"), object.get("error")) {
        (Some(_), None) => true,
        (None, Some(error)) => error["code"].is_i64() && error["message"].is_string(),
        _ => false,
    };
    object.get("jsonrpc") == Some(&json!("2.0")) && id_ok && payload_ok
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(4000))]

    #[test]
    fn any_value_gets_a_valid_response_or_nothing(value in json_value()) {
        let mut server = spec_server();
        server.set_method("sum", handler(|_| Ok(json!(0))));
        server.set_method("subtract", handler(|_| Ok(json!(0))));
        match serve(&mut server, &value.to_string()) {
            None => {}
            Some(Json::Array(replies)) => {
                prop_assert!(!replies.is_empty());
                prop_assert!(replies.iter().all(is_valid_response));
            }
            Some(reply) => prop_assert!(is_valid_response(&reply), "{}", reply),
        }
    }

    #[test]
    fn any_text_gets_a_valid_response_or_nothing(text in ".{0,64}") {
        if let Some(reply) = serve(&mut spec_server(), &text) {
            prop_assert!(is_valid_response(&reply) || reply.as_array().is_some_and(|r| r.iter().all(is_valid_response)));
        }
    }
}

#[test]
fn batch_policy_reject_and_limit() {
    use wiggum_rpc::core::BatchPolicy;
    let batch = r#"[{"jsonrpc":"2.0","method":"get_data","id":1},{"jsonrpc":"2.0","method":"get_data","id":2}]"#;
    let mut server = spec_server();
    server.set_batch_policy(BatchPolicy::Reject);
    assert_eq!(
        serve(&mut server, batch),
        Some(json!({"jsonrpc":"2.0","error":{"code":-32600,"message":"Batch requests not supported"},"id":null}))
    );
    server.set_batch_policy(BatchPolicy::Limit(1));
    assert_eq!(serve(&mut server, batch).unwrap()["error"]["message"], json!("Batch too large"));
    server.set_batch_policy(BatchPolicy::Limit(2));
    assert_eq!(serve(&mut server, batch).unwrap().as_array().map(Vec::len), Some(2));

    // A peer that refuses batches still reads a batch of responses to its own calls.
    let mut peer: Dispatcher<Json, Handler> = Dispatcher::new(Roles::PEER);
    peer.set_batch_policy(BatchPolicy::Reject);
    let responses = json!([{"jsonrpc":"2.0","result":1,"id":1},{"jsonrpc":"2.0","result":2,"id":2}]);
    let actions = peer.receive(&responses, Framing::Text);
    assert_eq!(actions.iter().filter(|a| matches!(a, Action::Settle { .. })).count(), 2);
}

#[test]
fn a_response_is_what_classification_reads_as_one() {
    // Every shape of envelope: what refuses a batch (is_response) and what
    // reads its members (classify_envelope) agree on which are responses.
    let some = |value: Json| Some(value);
    let ids = [IdMember::Absent, IdMember::Invalid, Id::read(json!(1), Kind::Number).into()];
    let methods = [None, some(json!("m")), some(json!(1))];
    let params = [None, Some((json!([]), Kind::Array)), Some((json!(3), Kind::Number))];
    let results = [None, some(json!(1))];
    let errors = [None, some(json!({"code": 1, "message": "x"})), some(json!("boom"))];
    let mut seen = [0; 2];
    for version_2 in [false, true] {
        for id in &ids {
            for method in &methods {
                for params in &params {
                    for result in &results {
                        for error in &errors {
                            let envelope = Envelope {
                                version_2,
                                id: id.clone(),
                                method: method.clone(),
                                params: params.clone(),
                                result: result.clone(),
                                error: error.clone(),
                                meta: None,
                            };
                            let classified = classify_envelope(envelope.clone(), Framing::Text);
                            let response = matches!(classified, Inbound::Response(_) | Inbound::InvalidResponse { .. });
                            assert_eq!(envelope.is_response(), response, "{envelope:?}");
                            seen[usize::from(response)] += 1;
                        }
                    }
                }
            }
        }
    }
    assert!(seen[0] > 0 && seen[1] > 0);
}

#[test]
fn a_peer_refusing_batches_reads_a_batch_of_answers_member_by_member_too() {
    let mut peer: Dispatcher<Json, Handler> = Dispatcher::new(Roles::PEER);
    peer.set_batch_policy(wiggum_rpc::core::BatchPolicy::Reject);
    let members = |batch: Json| batch.as_array().unwrap().iter().map(|m| Some(Envelope::read(m))).collect::<Vec<_>>();
    // Answers, one of them broken: each settles its call, nothing is refused.
    let answers = json!([
        {"jsonrpc":"2.0","result":1,"id":1},
        {"jsonrpc":"2.0","result":2,"error":{"code":1,"message":"x"},"id":2},
        {"jsonrpc":"2.0","error":{"code":1,"message":"x"}}
    ]);
    let actions = peer.receive_members(members(answers));
    assert_eq!(actions.iter().filter(|a| matches!(a, Action::Settle { .. })).count(), 2, "{actions:?}");
    assert!(!actions.iter().any(|a| matches!(a, Action::Send(_))), "{actions:?}");
    // A call among them: the batch is refused whole.
    let mixed = json!([{"jsonrpc":"2.0","result":1,"id":1}, {"jsonrpc":"2.0","method":"m","id":3}]);
    for actions in [peer.receive_members(members(mixed.clone())), peer.receive(&mixed, Framing::Text)] {
        match actions.as_slice() {
            [Action::Send(Outgoing::Single(Response { id: None, payload: Err(error), .. }))] => {
                assert_eq!(error.message, "Batch requests not supported");
            }
            other => panic!("{other:?}"),
        }
    }
    // A member that is no object is no answer either.
    let actions = peer.receive_members(vec![Some(Envelope::read(&json!({"jsonrpc":"2.0","result":1,"id":1}))), None]);
    assert!(matches!(actions.as_slice(), [Action::Send(_)]), "{actions:?}");
}

#[test]
fn batch_answers_as_they_settle() {
    use wiggum_rpc::core::BatchReplies;
    let mut server: Dispatcher<Json, Handler> = Dispatcher::new(Roles::SERVER);
    server.set_batch_replies(BatchReplies::AsSettled);
    server.set_method("echo", handler(|p| Ok(p.unwrap_or(Json::Null))));
    let batch = json!([
        {"jsonrpc":"2.0","method":"echo","params":["slow"],"id":1},
        {"jsonrpc":"2.0","method":"nope","id":2},
        {"jsonrpc":"2.0","method":"echo","params":["fast"],"id":3}
    ]);
    let calls: Vec<_> = server
        .receive(&batch, Framing::Text)
        .into_iter()
        .filter_map(|a| match a {
            Action::Call { call, params, .. } => Some((call, params.unwrap())),
            _ => None,
        })
        .collect();
    let ids = |out: Vec<Outgoing<Json>>| -> Vec<Vec<Json>> {
        out.into_iter()
            .map(|o| match o {
                Outgoing::Batch(replies) => replies.into_iter().map(|r| r.id.unwrap().into_value()).collect(),
                Outgoing::Single(_) => panic!("a batch is answered with arrays"),
            })
            .collect()
    };
    assert_eq!(ids(server.take_settled()), vec![vec![json!(2)]], "the direct error at once");
    assert!(server.complete(calls[1].0, Ok(calls[1].1.clone())).is_none());
    assert_eq!(ids(server.take_settled()), vec![vec![json!(3)]], "the fast call without waiting for the slow one");
    assert!(server.take_settled().is_empty(), "nothing is sent twice");
    assert!(server.complete(calls[0].0, Ok(calls[0].1.clone())).is_none());
    assert_eq!(ids(server.take_settled()), vec![vec![json!(1)]]);
    assert!(server.is_clean());
}

#[test]
fn cancel_request_names_the_call_in_flight() {
    let mut server: Dispatcher<Json, Handler> = Dispatcher::new(Roles::SERVER);
    server.set_method("slow", handler(|_| Ok(Json::Null)));
    let actions = server.receive(&json!({"jsonrpc":"2.0","method":"slow","id":"a"}), Framing::Text);
    let [Action::Call { call, .. }] = actions.as_slice() else { panic!("{actions:?}") };
    let cancel = |id: Json| json!({"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id": id}});
    assert!(server.receive(&cancel(json!("b")), Framing::Text).is_empty(), "an unknown id cancels nothing");
    assert!(server.receive(&cancel(json!(1)), Framing::Text).is_empty());
    match server.receive(&cancel(json!("a")), Framing::Text).as_slice() {
        [Action::Cancel { call: cancelled }] => assert_eq!(cancelled, call),
        other => panic!("{other:?}"),
    }
    assert!(server.complete(*call, Ok(Json::Null)).is_some(), "the answer still goes out");
    assert!(server.receive(&cancel(json!("a")), Framing::Text).is_empty(), "nothing to cancel once answered");
}

#[test]
fn stream_notifications_reach_the_caller_and_name_their_call() {
    let mut peer: Dispatcher<Json, Handler> = Dispatcher::new(Roles::PEER);
    let chunk = json!({"jsonrpc":"2.0","method":"stream.chunk","params":{"id":7,"chunk":{"line":"a"}}});
    match peer.receive(&chunk, Framing::Object).as_slice() {
        [Action::Chunk { id, chunk: Some(data) }] => assert_eq!((id, data), (&json!(7), &json!({"line":"a"}))),
        other => panic!("{other:?}"),
    }
    let end = json!({"jsonrpc":"2.0","method":"stream.end","params":{"id":"s-1"}});
    assert!(matches!(peer.receive(&end, Framing::Object).as_slice(), [Action::StreamEnd { id }] if id == "s-1"));
    // Without an id a chunk belongs to no call: nothing happens, nothing is answered.
    let orphan = json!({"jsonrpc":"2.0","method":"stream.chunk","params":{"chunk":1}});
    assert!(peer.receive(&orphan, Framing::Object).is_empty());
    // A server alone has no calls of its own: to it they are plain notifications.
    let mut server: Dispatcher<Json, Handler> = Dispatcher::new(Roles::SERVER);
    assert!(matches!(server.receive(&chunk, Framing::Object).as_slice(), [Action::Unhandled { .. }]));
}

#[test]
fn a_protocol_name_is_the_applications_where_the_roles_or_the_convention_do_not_claim_it() {
    let note = |method: &str, params: Json| json!({"jsonrpc":"2.0","method": method,"params": params});
    let kinds = |dispatcher: &mut Dispatcher<Json, Handler>, message: &Json| -> Vec<&'static str> {
        let actions = dispatcher.receive(message, Framing::Text);
        let kind = |action: &Action<Json, Handler>| match action {
            Action::Notify { .. } => "notify",
            Action::Unhandled { .. } => "unhandled",
            Action::Progress { .. } => "progress",
            Action::Chunk { .. } => "chunk",
            Action::StreamEnd { .. } => "end",
            Action::Credit { .. } => "credit",
            Action::Cancel { .. } => "cancel",
            Action::Ready { .. } => "ready",
            Action::SessionAck { .. } => "ack",
            other => panic!("{other:?}"),
        };
        actions.iter().map(kind).collect()
    };
    let progress = note("$/progress", json!({"id": 1, "value": 2}));
    let mcp_progress = note("notifications/progress", json!({"progressToken": 1, "progress": 2}));
    let chunk = note("stream.chunk", json!({"id": 1, "chunk": 2}));
    let end = note("stream.end", json!({"id": 1}));
    let credit = note("stream.credit", json!({"id": 1, "credit": 2}));
    let lsp_cancel = note("$/cancelRequest", json!({"id": 1}));
    let mcp_cancel = note("notifications/cancelled", json!({"requestId": 1}));
    let ready = note("$/ready", json!({}));
    let ack = note("$/ack", json!({"received": 3}));

    // A server alone reads no progress or chunks: with a handler of that name they are the application's.
    let mut server: Dispatcher<Json, Handler> = Dispatcher::new(Roles::SERVER);
    for name in ["$/progress", "notifications/progress", "stream.chunk", "notifications/cancelled"] {
        server.set_notification(name, handler(|_| Ok(Json::Null)));
    }
    assert_eq!(kinds(&mut server, &progress), ["notify"]);
    assert_eq!(kinds(&mut server, &mcp_progress), ["notify"]);
    assert_eq!(kinds(&mut server, &chunk), ["notify"]);
    assert_eq!(kinds(&mut server, &end), ["unhandled"]);
    // No call of that id is in flight: no credit, and no cancel (nor the application's).
    assert!(kinds(&mut server, &credit).is_empty());
    assert!(kinds(&mut server, &lsp_cancel).is_empty());
    // MCP's cancellation under the LSP's convention: the application's name.
    assert_eq!(kinds(&mut server, &mcp_cancel), ["notify"]);
    // The handshake and acknowledgements belong to the endpoint, whatever the roles.
    assert_eq!(kinds(&mut server, &ready), ["ready"]);
    assert_eq!(kinds(&mut server, &ack), ["ack"]);

    // A client alone: its calls' progress and chunks; nothing of a server's.
    let mut client: Dispatcher<Json, Handler> = Dispatcher::new(Roles::CLIENT);
    client.set_notification("notifications/progress", handler(|_| Ok(Json::Null)));
    assert_eq!(kinds(&mut client, &progress), ["progress"]);
    assert_eq!(kinds(&mut client, &chunk), ["chunk"]);
    assert_eq!(kinds(&mut client, &end), ["end"]);
    assert!(kinds(&mut client, &mcp_progress).is_empty(), "MCP's progress only in MCP's convention");
    assert!(kinds(&mut client, &credit).is_empty());
    assert!(kinds(&mut client, &lsp_cancel).is_empty());
    client.set_cancellation(wiggum_rpc::core::Cancellation::Mcp);
    assert_eq!(kinds(&mut client, &mcp_progress), ["progress"]);

    // A peer under MCP's convention: `$/cancelRequest` is the application's, unhandled.
    let mut peer: Dispatcher<Json, Handler> = Dispatcher::new(Roles::PEER);
    peer.set_cancellation(wiggum_rpc::core::Cancellation::Mcp);
    assert_eq!(kinds(&mut peer, &lsp_cancel), ["unhandled"]);
    assert!(kinds(&mut peer, &mcp_cancel).is_empty(), "a cancellation of nothing in flight");
}

#[test]
fn a_call_in_flight_tags_its_chunks_with_its_request_id() {
    let mut server = spec_server();
    let actions =
        server.receive(&json!({"jsonrpc":"2.0","method":"subtract","params":[2,1],"id":"req-9"}), Framing::Text);
    let [Action::Call { call, .. }] = actions.as_slice() else { panic!("{actions:?}") };
    assert_eq!(server.stream_end(*call), None, "no stream.end before a chunk");
    assert_eq!(server.stream(*call).map(Id::into_value), Some(json!("req-9")));
    assert_eq!(server.stream_end(*call).map(Id::into_value), Some(json!("req-9")));
    server.complete(*call, Ok(json!(1)));
    assert_eq!(server.stream(*call), None, "forgotten once answered");
}

#[test]
fn backoff_doubles_from_one_second_to_a_fifteen_second_cap() {
    let schedule = Backoff { jitter: 0.0, ..Backoff::default() };
    let delays: Vec<f64> = (1..=7).map(|attempt| schedule.delay_ms(attempt, 0.5).unwrap()).collect();
    assert_eq!(delays, [1000.0, 2000.0, 4000.0, 8000.0, 15_000.0, 15_000.0, 15_000.0]);
    assert_eq!(schedule.delay_ms(0, 0.5), None, "attempts count from 1");
    assert_eq!(schedule.delay_ms(10_000, 0.5), Some(15_000.0), "no overflow far out");
    // The last attempt there can be, on schedules that never reach the cap
    // (no growth, no start) or reach it at once: answered at once too.
    assert_eq!(schedule.delay_ms(u32::MAX, 0.0), Some(15_000.0));
    assert_eq!(Backoff { factor: 1.0, ..schedule }.delay_ms(u32::MAX, 0.0), Some(1000.0));
    assert_eq!(Backoff { initial_ms: 0.0, ..schedule }.delay_ms(u32::MAX, 0.0), Some(0.0));
    let odd = Backoff { initial_ms: 300.0, factor: 1.5, max_ms: 60_000.0, ..schedule };
    let expected = [300.0, 450.0, 675.0, 1012.5];
    assert_eq!((1..=4).map(|attempt| odd.delay_ms(attempt, 0.0).unwrap()).collect::<Vec<_>>(), expected);
    let limited = Backoff { max_attempts: Some(3), ..schedule };
    assert_eq!((limited.delay_ms(3, 0.0), limited.delay_ms(4, 0.0)), (Some(4000.0), None));
}

#[test]
fn backoff_jitter_only_shortens_and_stays_within_its_share() {
    let schedule = Backoff::default();
    for attempt in 1..=8 {
        let nominal = Backoff { jitter: 0.0, ..schedule }.delay_ms(attempt, 0.0).unwrap();
        for random in [0.0, 0.25, 0.5, 0.999] {
            let delay = schedule.delay_ms(attempt, random).unwrap();
            assert!(delay <= nominal && delay > nominal * 0.8 - 1e-9, "attempt {attempt}: {delay} of {nominal}");
        }
    }
    let nonsense =
        Backoff { initial_ms: f64::NAN, max_ms: -1.0, factor: f64::INFINITY, jitter: 7.0, max_attempts: None };
    for attempt in 1..=4 {
        let delay = nonsense.delay_ms(attempt, f64::NAN).unwrap();
        assert!(delay.is_finite() && delay >= 0.0, "{delay}");
    }
}

#[test]
fn a_hellos_max_batch_is_a_positive_whole_count_at_most_u32_max() {
    let read = |max: Json| Capabilities::read(Some(&json!({ "maxBatch": max }))).1.max_batch;
    assert_eq!(read(json!(0)), 0);
    assert_eq!(read(json!(-3)), 0);
    assert_eq!(read(json!(0.5)), 0);
    assert_eq!(read(json!("9")), 0);
    assert_eq!(read(json!(1)), 1);
    assert_eq!(read(json!(2.7)), 2, "rounded down");
    assert_eq!(read(json!(4_294_967_295u64)), u32::MAX as usize);
    assert_eq!(read(json!(1e20)), u32::MAX as usize, "past the most, the most");
    assert_eq!(Capabilities::read::<Json>(None).1.max_batch, 0);
}
