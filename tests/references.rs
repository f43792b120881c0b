//! Native tests of functions and objects by reference: two endpoints
//! exchanging JSON on a fake clock. The offer in `$/ready`, the tables of
//! exports and imports, `$/release`, calls to `$/ref/<id>`, references that
//! arrive and those released because nothing took them, and the ends of a
//! connection.
#![cfg(all(not(target_arch = "wasm32"), feature = "references"))]

use std::collections::{BTreeMap, VecDeque};

use proptest::prelude::*;
use serde_json::{json, Value as Json};
use wiggum_rpc::core::{
    json as wire, CallId, CallOptions, Capabilities, Config, Dialect, Endpoint, ErrorObject, Event, Framing, Handshake,
    Outcome, ReferenceEvent, Roles, SessionSetup,
};

#[derive(Clone, Debug, PartialEq)]
enum Handler {
    /// Answers its params at once.
    Echo,
    /// Answers when the test says so.
    Later,
}

/// What the host saw, in order, of what matters here.
#[derive(Clone, Debug, PartialEq)]
enum Seen {
    Stubs(Json),
    Invoke(Json),
    Notify(Json),
    Settled(u32),
    InvokeReference { reference: u32, member: Option<String> },
    Freed(Vec<u32>),
    Dropped,
}

struct Side {
    endpoint: Endpoint<Json, Handler, u32>,
    sent: Vec<Json>,
    seen: Vec<Seen>,
    settled: BTreeMap<u32, Outcome<Json>>,
    later: Vec<CallId>,
    /// Calls to references, waiting for the test to answer them.
    invoked: Vec<CallId>,
    cancelled: Vec<CallId>,
    peer: Option<Capabilities>,
    flush_due: bool,
}

impl Side {
    fn new(config: Config) -> Side {
        Side::of(Endpoint::new(config))
    }

    fn of(mut endpoint: Endpoint<Json, Handler, u32>) -> Side {
        endpoint.set_method("echo", Handler::Echo);
        endpoint.set_method("later", Handler::Later);
        endpoint.set_notification("note", Handler::Echo);
        Side {
            endpoint,
            sent: Vec::new(),
            seen: Vec::new(),
            settled: BTreeMap::new(),
            later: Vec::new(),
            invoked: Vec::new(),
            cancelled: Vec::new(),
            peer: None,
            flush_due: false,
        }
    }

    fn drain(&mut self) -> Vec<Json> {
        let mut out = Vec::new();
        while let Some(event) = self.endpoint.poll() {
            match event {
                Event::Transmit(transmit) => out.push(wire::transmit(&transmit)),
                Event::Invoke { call, handler, params, .. } => {
                    let params = params.unwrap_or(Json::Null);
                    self.seen.push(Seen::Invoke(params.clone()));
                    match handler {
                        Handler::Echo => self.endpoint.complete(call, Ok(params)),
                        Handler::Later => self.later.push(call),
                    }
                }
                Event::Notify { params, .. } => self.seen.push(Seen::Notify(params.unwrap_or(Json::Null))),
                Event::Settled { waiter, outcome, .. } => {
                    self.seen.push(Seen::Settled(waiter));
                    assert!(self.settled.insert(waiter, outcome).is_none(), "settled twice");
                }
                Event::Cancelled { call } => self.cancelled.push(call),
                Event::PeerReady(capabilities) => self.peer = Some(capabilities),
                Event::ScheduleFlush => self.flush_due = true,
                Event::References(event) => self.seen.push(match event {
                    ReferenceEvent::Stubs(refs) => Seen::Stubs(refs),
                    ReferenceEvent::Invoke { call, reference, member, .. } => {
                        self.invoked.push(call);
                        Seen::InvokeReference { reference, member }
                    }
                    ReferenceEvent::Freed(ids) => Seen::Freed(ids),
                    ReferenceEvent::Dropped => Seen::Dropped,
                }),
                _ => {}
            }
        }
        self.sent.extend(out.iter().cloned());
        out
    }

    /// Exports `new` targets, then calls `method` with `params` and `refs`.
    fn call_with(&mut self, waiter: u32, method: &str, params: Json, refs: Json) -> Option<u64> {
        self.endpoint.request_with_refs(json!(method), Some(params), refs, waiter, CallOptions::default(), || 0)
    }

    /// A raw message from the other side, as one task.
    fn hear(&mut self, message: Json) -> Vec<Json> {
        self.endpoint.receive(&message, Framing::Object);
        self.end_turn()
    }

    fn error(&self, waiter: u32) -> Option<&ErrorObject<Json>> {
        match self.settled.get(&waiter) {
            Some(Outcome::Error(error)) => Some(error),
            _ => None,
        }
    }

    fn end_turn(&mut self) -> Vec<Json> {
        let mut out = self.drain();
        while std::mem::take(&mut self.flush_due) {
            self.endpoint.flush();
            out.extend(self.drain());
        }
        out
    }
}

struct Pair {
    a: Side,
    b: Side,
    to_a: VecDeque<Json>,
    to_b: VecDeque<Json>,
}

#[derive(Clone, Copy)]
enum To {
    A,
    B,
}

/// A Peer that says hello and takes references.
fn referring() -> Config {
    Config { handshake: Handshake::Announce, references: true, ..Config::new(Roles::PEER) }
}

impl Pair {
    fn new(a: Config, b: Config) -> Pair {
        Pair::of(Side::new(a), Side::new(b))
    }

    fn of(a: Side, b: Side) -> Pair {
        let mut pair = Pair { a, b, to_a: VecDeque::new(), to_b: VecDeque::new() };
        pair.to_b.extend(pair.a.end_turn());
        pair.to_a.extend(pair.b.end_turn());
        pair.run();
        pair
    }

    fn friends() -> Pair {
        Pair::new(referring(), referring())
    }

    fn turn(&mut self, to: To, turn: impl FnOnce(&mut Side)) {
        let (side, outbox) = match to {
            To::A => (&mut self.a, &mut self.to_b),
            To::B => (&mut self.b, &mut self.to_a),
        };
        turn(side);
        outbox.extend(side.end_turn());
    }

    fn deliver(&mut self, to: To) -> bool {
        let (inbox, side, outbox) = match to {
            To::A => (&mut self.to_a, &mut self.a, &mut self.to_b),
            To::B => (&mut self.to_b, &mut self.b, &mut self.to_a),
        };
        let Some(message) = inbox.pop_front() else { return false };
        side.endpoint.receive(&message, Framing::Object);
        outbox.extend(side.end_turn());
        true
    }

    fn run(&mut self) {
        while self.deliver(To::A) | self.deliver(To::B) {}
    }
}

fn hello_of(side: &Side) -> &Json {
    &side.sent[0]["params"]
}

// ---- the offer -------------------------------------------------------------

#[test]
fn peers_that_both_take_references_see_each_others_offer() {
    let pair = Pair::friends();
    assert_eq!(hello_of(&pair.a)["references"], json!(true));
    assert!(pair.a.peer.is_some_and(|peer| peer.references));
    assert!(pair.b.peer.is_some_and(|peer| peer.references));
    assert!(pair.a.endpoint.takes_references() && pair.b.endpoint.takes_references());
}

#[test]
fn only_a_peer_in_the_plain_dialect_offers_references() {
    let client = Config { roles: Roles::CLIENT, ..referring() };
    let server = Config { roles: Roles::SERVER, ..referring() };
    let mcp = referring().with_dialect(Dialect::Mcp);
    let jrpc_oo = referring().with_dialect(Dialect::JrpcOo);
    for config in [client, server, mcp, jrpc_oo] {
        let pair = Pair::new(config, referring());
        assert_eq!(hello_of(&pair.a).get("references"), None, "{config:?}");
        assert!(pair.b.peer.is_some_and(|peer| !peer.references), "{config:?}");
        assert!(!pair.a.endpoint.takes_references() && !pair.b.endpoint.takes_references());
    }
}

#[test]
fn references_are_off_by_default_and_the_hello_is_as_before() {
    let plain = Config { handshake: Handshake::Announce, ..Config::new(Roles::PEER) };
    let pair = Pair::new(plain, referring());
    assert_eq!(
        hello_of(&pair.a),
        &json!({"ack": false, "batches": true, "splitBatchAnswers": true, "maxBatch": 1000, "streamCredit": true, "progress": true})
    );
    assert!(!pair.b.endpoint.takes_references());
}

#[test]
fn a_stranger_that_never_said_hello_never_takes_references() {
    let mut side = Side::new(referring());
    side.end_turn();
    side.endpoint.receive(&json!({"jsonrpc": "2.0", "id": 1, "method": "echo", "params": [1]}), Framing::Object);
    side.end_turn();
    assert_eq!(side.peer, Some(Capabilities::NONE));
    assert!(!side.endpoint.takes_references());
}

// ---- exports and `$/release` -------------------------------------------------

/// A's callback, exported and sent to B's `later` as its second param.
fn send_callback(pair: &mut Pair, waiter: u32) -> u32 {
    let mut first = 0;
    pair.turn(To::A, |side| {
        first = side.endpoint.export(1, &[], &[]).unwrap();
        side.call_with(waiter, "later", json!(["/src", {"$ref": first}]), json!([[first, [1]]])).unwrap();
    });
    first
}

#[test]
fn a_request_carries_its_refs_beside_its_params() {
    let mut pair = Pair::friends();
    let id = send_callback(&mut pair, 1);
    assert_eq!(id, 1, "export ids start at 1");
    assert_eq!(
        pair.a.sent.last(),
        Some(
            &json!({"jsonrpc": "2.0", "id": 1, "method": "later", "params": ["/src", {"$ref": 1}], "refs": [[1, [1]]]})
        )
    );
    assert_eq!(pair.a.endpoint.references_held(), (1, 0));
    assert!(!pair.a.endpoint.is_idle(), "an export held by the peer is not idle");
}

#[test]
fn references_toward_a_peer_that_did_not_offer_them_are_refused_and_nothing_is_sent() {
    let plain = Config { handshake: Handshake::Announce, ..Config::new(Roles::PEER) };
    let mut pair = Pair::new(referring(), plain);
    let before = pair.a.sent.len();
    pair.turn(To::A, |side| {
        let refused = side.endpoint.export(1, &[], &[]).unwrap_err();
        assert_eq!(refused.code, -32602);
        assert!(refused.message.contains("does not take"), "{}", refused.message);
        assert_eq!(side.call_with(1, "echo", json!([{"$ref": 1}]), json!([[1, [0]]])), None);
        assert_eq!(side.endpoint.notify_with_refs(json!("note"), Some(json!([])), json!([])).unwrap_err().code, -32602);
    });
    assert!(matches!(pair.a.error(1), Some(error) if error.code == -32602));
    assert_eq!(pair.a.sent.len(), before, "nothing sent");
    assert_eq!(pair.a.endpoint.references_held(), (0, 0));
}

#[test]
fn release_counts_introductions_and_frees_at_zero() {
    let mut pair = Pair::friends();
    let id = send_callback(&mut pair, 1);
    // Sent again: two introductions.
    assert_eq!(pair.a.endpoint.export(0, &[id], &[]), Ok(id + 1), "no new id given");
    let release = |count: u32| json!({"jsonrpc": "2.0", "method": "$/release", "params": {"refs": [[id, count]]}});
    pair.a.hear(release(1));
    assert!(!pair.a.seen.iter().any(|seen| matches!(seen, Seen::Freed(_))), "one introduction left");
    assert_eq!(pair.a.endpoint.references_held(), (1, 0));
    pair.a.hear(release(1));
    assert_eq!(pair.a.seen.last(), Some(&Seen::Freed(vec![id])));
    assert_eq!(pair.a.endpoint.references_held(), (0, 0));
    // Over-release, a double release and unknown ids: ignored, never negative.
    pair.a.hear(release(5));
    pair.a.hear(
        json!({"jsonrpc": "2.0", "method": "$/release", "params": {"refs": [[99, 1], [-1, 1], "x", [1], [1, 0.5]]}}),
    );
    pair.a.hear(json!({"jsonrpc": "2.0", "method": "$/release", "params": {"refs": 7}}));
    pair.a.hear(json!({"jsonrpc": "2.0", "method": "$/release"}));
    assert_eq!(pair.a.seen.iter().filter(|seen| matches!(seen, Seen::Freed(_))).count(), 1);
    assert_eq!(pair.a.endpoint.export(1, &[], &[]), Ok(id + 1), "ids are never reused");
}

#[test]
fn a_release_that_crosses_a_resend_frees_nothing() {
    let mut pair = Pair::friends();
    let id = send_callback(&mut pair, 1);
    pair.a.endpoint.export(0, &[id], &[]).unwrap();
    // The peer released the first introduction before it saw the second.
    pair.a.hear(json!({"jsonrpc": "2.0", "method": "$/release", "params": {"refs": [[id, 1]]}}));
    assert_eq!(pair.a.endpoint.references_held(), (1, 0));
    let sent_again = pair.a.endpoint.export(0, &[id], &[]);
    assert!(sent_again.is_ok(), "still live: {sent_again:?}");
}

#[test]
fn past_max_references_the_next_export_is_refused_until_one_is_released() {
    let mut config = referring();
    config.limits.max_references = 3;
    let mut pair = Pair::new(config, referring());
    assert_eq!(pair.a.endpoint.export(2, &[], &[]), Ok(1));
    assert_eq!(pair.a.endpoint.export(1, &[], &[]), Ok(3));
    let refused = pair.a.endpoint.export(1, &[], &[]).unwrap_err();
    assert_eq!(refused.code, -32090);
    assert!(refused.message.contains("holds 3"), "{}", refused.message);
    assert_eq!(pair.a.endpoint.export(0, &[2], &[]), Ok(4), "again is not a new entry; no id was used");
    pair.a.hear(json!({"jsonrpc": "2.0", "method": "$/release", "params": {"refs": [[1, 1]]}}));
    assert_eq!(pair.a.endpoint.export(1, &[], &[]), Ok(4));
}

#[test]
fn export_names_only_live_ids() {
    let mut pair = Pair::friends();
    assert_eq!(pair.a.endpoint.export(0, &[1], &[]).unwrap_err().code, -32091, "never sent");
    assert_eq!(pair.a.endpoint.export(0, &[], &[1]).unwrap_err().code, -32091, "no stub held");
}

// ---- calls to a reference ------------------------------------------------------

fn call(id: u32, method: &str) -> Json {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": [{"file": "a.ts"}]})
}

#[test]
fn a_call_to_a_live_reference_is_run_as_a_served_call() {
    let mut pair = Pair::friends();
    let id = send_callback(&mut pair, 1);
    pair.a.hear(call(9, "$/ref/1"));
    pair.a.hear(call(10, "$/ref/1.close"));
    assert_eq!(
        pair.a.seen[pair.a.seen.len() - 2..],
        [
            Seen::InvokeReference { reference: id, member: None },
            Seen::InvokeReference { reference: id, member: Some("close".into()) }
        ]
    );
    assert!(pair.a.endpoint.is_serving());
    // Cancel and progress go as for any call.
    pair.a.hear(json!({"jsonrpc": "2.0", "method": "$/cancelRequest", "params": {"id": 9}}));
    assert_eq!(pair.a.cancelled, [pair.a.invoked[0]]);
    assert!(pair.a.endpoint.progress(pair.a.invoked[1], json!(50)));
    let first = pair.a.invoked[0];
    pair.a.endpoint.complete(first, Ok(json!(null)));
    let out = pair.a.end_turn();
    assert_eq!(out.last(), Some(&json!({"jsonrpc": "2.0", "id": 9, "result": null})));
}

#[test]
fn a_released_and_a_never_sent_reference_each_get_unknown_reference() {
    let mut pair = Pair::friends();
    let id = send_callback(&mut pair, 1);
    pair.a.hear(json!({"jsonrpc": "2.0", "method": "$/release", "params": {"refs": [[id, 1]]}}));
    let released = pair.a.hear(call(9, "$/ref/1"));
    let never = pair.a.hear(call(10, "$/ref/7.close"));
    assert_eq!(
        released,
        [
            json!({"jsonrpc": "2.0", "id": 9, "error": {"code": -32091, "message": "Unknown reference: 1 (released)", "data": {"ref": 1}}})
        ]
    );
    assert_eq!(
        never,
        [
            json!({"jsonrpc": "2.0", "id": 10, "error": {"code": -32091, "message": "Unknown reference: 7 (never sent on this connection)", "data": {"ref": 7}}})
        ]
    );
    assert_eq!(pair.a.endpoint.references_held(), (0, 0));
    assert!(!pair.a.endpoint.is_serving());
}

#[test]
fn names_that_are_not_references_are_not_found() {
    let mut pair = Pair::friends();
    for name in ["$/ref/", "$/ref/0", "$/ref/01", "$/ref/1.", "$/ref/x", "$/ref/+1", "$/ref/99999999999", "$/refs/1"] {
        let out = pair.a.hear(call(9, name));
        assert_eq!(out[0]["error"]["code"], json!(-32601), "{name}");
    }
}

#[test]
fn without_references_a_call_to_a_reference_is_not_found() {
    let plain = Config { handshake: Handshake::Announce, ..Config::new(Roles::PEER) };
    let mut side = Side::new(plain);
    side.end_turn();
    let out = side.hear(call(9, "$/ref/1"));
    assert_eq!(out[0]["error"]["code"], json!(-32601));
    let out = side.hear(json!({"jsonrpc": "2.0", "method": "$/release", "params": {"refs": [[1, 1]]}}));
    assert!(out.is_empty());
}

#[test]
fn calls_to_references_count_against_max_in_flight() {
    let mut config = referring();
    config.limits.max_in_flight = 1;
    let mut pair = Pair::new(config, referring());
    pair.a.endpoint.export(1, &[], &[]).unwrap();
    pair.a.hear(call(9, "$/ref/1"));
    let out = pair.a.hear(call(10, "$/ref/1"));
    assert_eq!(out[0]["error"]["code"], json!(-32092));
}

// ---- references that arrive ------------------------------------------------------

fn releases(sent: &[Json]) -> Vec<Json> {
    sent.iter().filter(|m| m["method"] == json!("$/release")).map(|m| m["params"]["refs"].clone()).collect()
}

#[test]
fn a_reference_in_params_arrives_as_stubs_just_before_its_handler() {
    let mut pair = Pair::friends();
    send_callback(&mut pair, 1);
    pair.run();
    assert_eq!(pair.b.seen, [Seen::Stubs(json!([[1, [1]]])), Seen::Invoke(json!(["/src", {"$ref": 1}]))]);
    assert_eq!(pair.b.endpoint.references_held(), (0, 1));
    // B calls the stub; A runs its target; the answer settles B's call.
    pair.turn(To::B, |side| {
        side.endpoint.request(json!("$/ref/1"), Some(json!([{"file": "a.ts"}])), 2, None, || 0);
    });
    pair.run();
    assert_eq!(pair.a.seen.last(), Some(&Seen::InvokeReference { reference: 1, member: None }));
    let call = pair.a.invoked[0];
    pair.turn(To::A, |side| side.endpoint.complete(call, Ok(json!("seen"))));
    pair.run();
    assert_eq!(pair.b.settled.get(&2), Some(&Outcome::Result(json!("seen"))));
    // B drops its stub: one `$/release` at the end of the turn, and A frees its target.
    pair.turn(To::B, |side| {
        side.endpoint.release(1, 1);
        side.endpoint.release(1, 1);
    });
    assert_eq!(releases(&pair.b.sent), [json!([[1, 1]])], "the second release held nothing");
    pair.run();
    assert_eq!(pair.a.seen.last(), Some(&Seen::Freed(vec![1])));
    assert_eq!(pair.a.endpoint.references_held(), (0, 0));
    assert_eq!(pair.b.endpoint.references_held(), (0, 0));
    let later = pair.b.later.remove(0);
    pair.turn(To::B, |side| side.endpoint.complete(later, Ok(json!(null))));
    pair.run();
    assert!(pair.a.endpoint.is_idle() && pair.b.endpoint.is_idle());
}

#[test]
fn releases_of_one_turn_go_as_one_message() {
    let mut pair = Pair::friends();
    pair.turn(To::A, |side| {
        let first = side.endpoint.export(3, &[], &[]).unwrap();
        let refs = json!([[first, [0]], [first + 1, [1]], [first + 2, [2]], [first, [3]]]);
        side.call_with(1, "echo", json!([0, 1, 2, 3]), refs);
    });
    pair.run();
    assert_eq!(pair.b.endpoint.references_held(), (0, 4));
    pair.turn(To::B, |side| {
        for id in [1, 2, 3, 1] {
            side.endpoint.release(id, 1);
        }
    });
    assert_eq!(releases(&pair.b.sent), [json!([[1, 1], [2, 1], [3, 1], [1, 1]])]);
    pair.run();
    assert_eq!(pair.a.endpoint.references_held(), (0, 0));
}

#[test]
fn a_stub_passed_back_resolves_to_its_export_without_a_count() {
    let mut pair = Pair::friends();
    send_callback(&mut pair, 1);
    pair.run();
    pair.turn(To::B, |side| {
        side.endpoint.export(0, &[], &[1]).unwrap();
        side.call_with(2, "echo", json!([{"$ref": -1}]), json!([[-1, [0]]]));
    });
    pair.run();
    let at = pair.a.seen.iter().position(|seen| *seen == Seen::Stubs(json!([[-1, [0]]])));
    assert_eq!(
        at.and_then(|at| pair.a.seen.get(at + 1)),
        Some(&Seen::Invoke(json!([{"$ref": -1}]))),
        "{:?}",
        pair.a.seen
    );
    assert_eq!(pair.a.endpoint.references_held(), (1, 0), "no new import, no count");
    assert_eq!(pair.b.endpoint.references_held(), (0, 1));
}

#[test]
fn a_dead_back_reference_is_answered_unknown_reference() {
    let mut pair = Pair::friends();
    let out = pair.a.hear(json!({"jsonrpc": "2.0", "id": 3, "method": "echo", "params": [{"$ref": -5}, {"$ref": 4}], "refs": [[-5, [0]], [4, [1]]]}));
    assert_eq!(out[0]["error"]["code"], json!(-32091));
    assert_eq!(out[0]["error"]["data"], json!({"ref": 5}));
    assert!(!pair.a.seen.iter().any(|seen| matches!(seen, Seen::Invoke(_) | Seen::Stubs(_))), "the handler never ran");
    assert_eq!(releases(&out), [json!([[4, 1]])], "what it introduced is released at once");
    assert_eq!(pair.a.endpoint.references_held(), (0, 0));
}

#[test]
fn malformed_refs_are_an_invalid_request_and_what_they_introduced_is_released() {
    let mut pair = Pair::friends();
    for refs in [
        json!(7),
        json!([[3, [0]], "x"]),
        json!([[3, [0]], [0, []]]),
        json!([[3, [0]], [1.5, []]]),
        json!([[3, [0]], [2, {}]]),
        json!([[3, [0]], [2, [], 1]]),
    ] {
        let out = pair.a.hear(json!({"jsonrpc": "2.0", "id": 3, "method": "echo", "params": [], "refs": refs}));
        assert_eq!(out[0]["error"]["code"], json!(-32600), "{refs}");
        let released = if refs.is_array() { vec![json!([[3, 1]])] } else { vec![] };
        assert_eq!(releases(&out), released, "{refs}");
    }
    assert_eq!(pair.a.endpoint.references_held(), (0, 0));
    assert!(pair.a.endpoint.is_idle());
}

#[test]
fn stubs_past_the_bound_are_refused_and_released() {
    let mut config = referring();
    config.limits.max_references = 2;
    let mut pair = Pair::new(config, referring());
    let out = pair.a.hear(
        json!({"jsonrpc": "2.0", "id": 3, "method": "echo", "params": [], "refs": [[1, [0]], [2, [1]], [3, [2]]]}),
    );
    assert_eq!(out[0]["error"]["code"], json!(-32090));
    assert_eq!(releases(&out), [json!([[1, 1], [2, 1], [3, 1]])]);
    let out =
        pair.a.hear(json!({"jsonrpc": "2.0", "id": 4, "method": "echo", "params": [], "refs": [[1, [0]], [2, [1]]]}));
    assert_eq!(out[0]["result"], json!([]));
    assert_eq!(pair.a.endpoint.references_held(), (0, 2));
}

#[test]
fn references_nothing_took_are_released_at_once() {
    let mut config = referring();
    config.limits.max_in_flight = 1;
    let mut pair = Pair::new(config, referring());
    let with = |message: Json| {
        let mut message = message;
        message["refs"] = json!([[8, [0]]]);
        message
    };
    // Not found, an unhandled notification, a malformed message.
    let cases = [
        json!({"jsonrpc": "2.0", "id": 1, "method": "nothing", "params": [1]}),
        json!({"jsonrpc": "2.0", "method": "nothing", "params": [1]}),
        json!({"jsonrpc": "2.0", "id": 1, "method": "echo", "params": 5}),
    ];
    for message in cases {
        let out = pair.a.hear(with(message.clone()));
        assert_eq!(releases(&out), [json!([[8, 1]])], "{message}");
    }
    // Too many calls: the first is served, the second refused.
    pair.a.hear(json!({"jsonrpc": "2.0", "id": 2, "method": "later", "params": []}));
    let out = pair.a.hear(with(json!({"jsonrpc": "2.0", "id": 3, "method": "echo", "params": []})));
    assert_eq!(out[0]["error"]["code"], json!(-32092));
    assert_eq!(releases(&out), [json!([[8, 1]])]);
    assert_eq!(pair.a.endpoint.references_held(), (0, 0));
    assert!(!pair.a.seen.iter().any(|seen| matches!(seen, Seen::Stubs(_))));
}

#[test]
fn a_late_answer_with_references_releases_them() {
    let mut pair = Pair::friends();
    pair.turn(To::A, |side| {
        side.endpoint.request(json!("later"), Some(json!([])), 1, None, || 0);
    });
    pair.run();
    pair.turn(To::A, |side| assert!(side.endpoint.cancel(1)));
    pair.run();
    let call = pair.b.later.remove(0);
    pair.turn(To::B, |side| {
        let id = side.endpoint.export(1, &[], &[]).unwrap();
        side.endpoint.complete_with_refs(call, json!({"$ref": id}), json!([[id, []]]));
    });
    assert_eq!(pair.b.sent.last().unwrap()["refs"], json!([[1, []]]));
    pair.run();
    assert_eq!(releases(&pair.a.sent), [json!([[1, 1]])]);
    assert_eq!(pair.b.seen.last(), Some(&Seen::Freed(vec![1])));
    assert!(pair.a.endpoint.is_idle() && pair.b.endpoint.is_idle());
}

#[test]
fn a_result_and_a_notification_bring_stubs_just_before_they_are_delivered() {
    let mut pair = Pair::friends();
    pair.turn(To::A, |side| {
        side.endpoint.request(json!("later"), Some(json!([])), 1, None, || 0);
    });
    pair.run();
    let call = pair.b.later.remove(0);
    pair.turn(To::B, |side| {
        let id = side.endpoint.export(2, &[], &[]).unwrap();
        side.endpoint.complete_with_refs(call, json!({"$ref": id}), json!([[id, []]]));
        side.endpoint.notify_with_refs(json!("note"), Some(json!([{"$ref": id + 1}])), json!([[id + 1, [0]]])).unwrap();
    });
    pair.run();
    let n = pair.a.seen.len();
    assert_eq!(
        pair.a.seen[n - 4..],
        [
            Seen::Stubs(json!([[1, []]])),
            Seen::Settled(1),
            Seen::Stubs(json!([[2, [0]]])),
            Seen::Notify(json!([{"$ref": 2}]))
        ]
    );
    assert_eq!(pair.a.endpoint.references_held(), (0, 2));
}

#[test]
fn a_result_toward_a_peer_without_references_is_an_internal_error() {
    let plain = Config { handshake: Handshake::Announce, ..Config::new(Roles::PEER) };
    let mut pair = Pair::new(plain, referring());
    pair.turn(To::A, |side| {
        side.endpoint.request(json!("later"), Some(json!([])), 1, None, || 0);
    });
    pair.run();
    let call = pair.b.later.remove(0);
    pair.turn(To::B, |side| side.endpoint.complete_with_refs(call, json!({"$ref": 1}), json!([[1, []]])));
    pair.run();
    assert!(matches!(pair.a.error(1), Some(error) if error.code == -32603));
    assert!(!pair.b.sent.iter().any(|m| m.get("refs").is_some()));
}

// ---- the ends of a connection ------------------------------------------------------

fn dropped(side: &Side) -> usize {
    side.seen.iter().filter(|seen| **seen == Seen::Dropped).count()
}

/// Friends with a reference each way: A's callback held by B, B's result held by A.
fn holding_both_ways() -> Pair {
    let mut pair = Pair::friends();
    send_callback(&mut pair, 1);
    pair.run();
    let call = pair.b.later.remove(0);
    pair.turn(To::B, |side| {
        let id = side.endpoint.export(1, &[], &[]).unwrap();
        side.endpoint.complete_with_refs(call, json!({"$ref": id}), json!([[id, []]]));
    });
    pair.run();
    assert_eq!(pair.a.endpoint.references_held(), (1, 1));
    assert_eq!(pair.b.endpoint.references_held(), (1, 1));
    assert_eq!(dropped(&pair.a) + dropped(&pair.b), 0, "the start-up hellos drop nothing");
    pair
}

#[test]
fn a_closed_connection_drops_references_both_ways_and_ids_go_on() {
    let mut pair = holding_both_ways();
    pair.turn(To::A, |side| side.endpoint.connection_closed());
    pair.turn(To::B, |side| side.endpoint.connection_closed());
    for side in [&pair.a, &pair.b] {
        assert_eq!(dropped(side), 1);
        assert_eq!(side.endpoint.references_held(), (0, 0));
        assert!(side.endpoint.is_idle());
    }
    pair.turn(To::A, |side| side.endpoint.release(1, 1));
    assert!(releases(&pair.a.sent).is_empty(), "nothing held, nothing released");
    assert_eq!(pair.a.endpoint.export(1, &[], &[]), Ok(2), "an old id never names a new target");
}

#[test]
fn a_lost_connection_without_a_session_drops_references() {
    let mut pair = holding_both_ways();
    pair.turn(To::A, |side| assert!(!side.endpoint.connection_lost(5)));
    assert_eq!(dropped(&pair.a), 1);
    assert_eq!(pair.a.endpoint.references_held(), (0, 0));
}

#[test]
fn destroy_drops_references() {
    let mut pair = holding_both_ways();
    pair.turn(To::A, |side| side.endpoint.destroy());
    assert_eq!(dropped(&pair.a), 1);
    assert_eq!(pair.a.endpoint.references_held(), (0, 0));
    assert!(pair.a.endpoint.export(1, &[], &[]).is_err());
    pair.turn(To::A, |side| side.endpoint.release(1, 1));
    assert!(releases(&pair.a.sent).is_empty());
}

#[test]
fn a_hello_from_a_new_instance_drops_references() {
    let mut pair = holding_both_ways();
    let hello =
        json!({"jsonrpc": "2.0", "method": "$/ready", "params": {"ack": false, "batches": true, "references": true}});
    let out = pair.a.hear(hello);
    assert_eq!(dropped(&pair.a), 1);
    assert_eq!(pair.a.endpoint.references_held(), (0, 0));
    assert_eq!(out[0]["params"]["ack"], json!(true), "answered as any hello");
    // An answer is not a new instance.
    pair.a.hear(json!({"jsonrpc": "2.0", "method": "$/ready", "params": {"ack": true, "references": true}}));
    assert_eq!(dropped(&pair.a), 1);
}

#[test]
fn without_references_no_event_is_dropped() {
    let plain = Config { handshake: Handshake::Announce, ..Config::new(Roles::PEER) };
    let mut pair = Pair::new(plain, plain);
    pair.turn(To::A, |side| side.endpoint.connection_closed());
    pair.turn(To::B, |side| side.endpoint.destroy());
    assert_eq!(dropped(&pair.a) + dropped(&pair.b), 0);
}

// ---- sessions ---------------------------------------------------------------------

const GRACE: u64 = 60_000;

/// A client and the server endpoint of its session, friends with a reference each way.
fn in_session() -> Pair {
    let client = Endpoint::with_session(referring(), None, Some(SessionSetup::Client { max_kept: 1_000 }));
    let setup = SessionSetup::Server { id: "s-1".into(), grace_ms: GRACE, max_kept: 1_000 };
    let server_config = Config { handshake: Handshake::Off, ..referring() };
    let server = Endpoint::with_session(server_config, None, Some(setup));
    let mut pair = Pair::of(Side::of(client), Side::of(server));
    pair.turn(To::A, |side| {
        let id = side.endpoint.export(1, &[], &[]).unwrap();
        side.call_with(1, "echo", json!([{"$ref": id}]), json!([[id, [0]]]));
    });
    pair.run();
    assert_eq!(pair.a.endpoint.session_id(), Some("s-1"));
    assert_eq!(pair.a.endpoint.references_held(), (1, 0));
    assert_eq!(pair.b.endpoint.references_held(), (0, 1));
    pair
}

fn lose_connection(pair: &mut Pair, now: u64) {
    pair.to_a.clear();
    pair.to_b.clear();
    pair.turn(To::A, |side| assert!(side.endpoint.connection_lost(now)));
    pair.turn(To::B, |side| assert!(side.endpoint.connection_lost(now)));
}

#[test]
fn a_resumed_session_keeps_references_and_a_release_made_while_away_arrives_once() {
    let mut pair = in_session();
    lose_connection(&mut pair, 10);
    pair.turn(To::B, |side| side.endpoint.release(1, 1));
    assert!(releases(&pair.b.sent).is_empty(), "held while away");
    pair.turn(To::A, |side| side.endpoint.connection_opened());
    pair.run();
    assert_eq!(dropped(&pair.a) + dropped(&pair.b), 0);
    assert_eq!(releases(&pair.b.sent), [json!([[1, 1]])], "sent once, on resume");
    assert_eq!(pair.a.seen.last(), Some(&Seen::Freed(vec![1])));
    assert_eq!(pair.a.endpoint.references_held(), (0, 0));
    assert_eq!(pair.b.endpoint.references_held(), (0, 0));
}

#[test]
fn a_session_whose_grace_runs_out_drops_references() {
    let mut pair = in_session();
    lose_connection(&mut pair, 10);
    pair.turn(To::B, |side| side.endpoint.handle_timeout(10 + GRACE));
    assert_eq!(dropped(&pair.b), 1);
    assert_eq!(pair.b.endpoint.references_held(), (0, 0));
}

#[test]
fn a_session_that_cannot_be_resumed_drops_references() {
    let mut pair = in_session();
    lose_connection(&mut pair, 10);
    // The server forgot the session: it answers the client's hello with another.
    let setup = SessionSetup::Server { id: "s-2".into(), grace_ms: GRACE, max_kept: 1_000 };
    let server = Endpoint::with_session(Config { handshake: Handshake::Off, ..referring() }, None, Some(setup));
    pair.b = Side::of(server);
    pair.turn(To::A, |side| side.endpoint.connection_opened());
    pair.run();
    assert_eq!(dropped(&pair.a), 1);
    assert_eq!(pair.a.endpoint.references_held(), (0, 0));
}

// ---- batches ---------------------------------------------------------------------------

#[test]
fn each_batch_member_carries_its_own_refs_and_its_stubs_pair_with_its_handler() {
    let mut pair = Pair::friends();
    pair.turn(To::A, |side| {
        for n in 0..3u32 {
            let id = side.endpoint.export(1, &[], &[]).unwrap();
            side.call_with(n, "echo", json!([n, {"$ref": id}]), json!([[id, [1]]]));
        }
    });
    let batch = pair.a.sent.last().unwrap().as_array().expect("the rest of the turn as one batch").clone();
    assert_eq!(batch.iter().map(|m| m["refs"].clone()).collect::<Vec<_>>(), [json!([[2, [1]]]), json!([[3, [1]]])]);
    pair.run();
    let expected: Vec<Seen> = (0..3u32)
        .flat_map(|n| [Seen::Stubs(json!([[n + 1, [1]]])), Seen::Invoke(json!([n, {"$ref": n + 1}]))])
        .collect();
    assert_eq!(pair.b.seen[..6], expected[..]);
    assert_eq!(pair.b.endpoint.references_held(), (0, 3));
}

#[test]
fn a_batch_member_that_delivers_nothing_releases_only_its_own() {
    let mut pair = Pair::friends();
    let out = pair.a.hear(json!([
        {"jsonrpc": "2.0", "id": 1, "method": "nothing", "params": [], "refs": [[5, [0]]]},
        {"jsonrpc": "2.0", "id": 2, "method": "echo", "params": []},
        {"jsonrpc": "2.0", "id": 3, "method": "echo", "params": [{"$ref": 6}], "refs": [[6, [0]]]},
        {"jsonrpc": "2.0", "method": "note", "params": [7], "refs": [[7, [0]], "bad"]}
    ]));
    assert_eq!(
        pair.a.seen,
        [Seen::Invoke(json!([])), Seen::Stubs(json!([[6, [0]]])), Seen::Invoke(json!([{"$ref": 6}]))]
    );
    assert_eq!(releases(&out), [json!([[5, 1], [7, 1]])]);
    assert_eq!(pair.a.endpoint.references_held(), (0, 1));
}

#[test]
fn a_batch_refused_whole_releases_what_its_members_brought() {
    let config = Config { batch_policy: wiggum_rpc::core::BatchPolicy::Limit(1), ..referring() };
    let mut pair = Pair::new(config, referring());
    let out = pair.a.hear(json!([
        {"jsonrpc": "2.0", "id": 1, "method": "echo", "params": [], "refs": [[5, [0]]]},
        {"jsonrpc": "2.0", "id": 2, "method": "echo", "params": [], "refs": [[6, [0]]]}
    ]));
    assert_eq!(out[0]["error"]["code"], json!(-32600));
    assert_eq!(releases(&out), [json!([[5, 1], [6, 1]])]);
    assert!(pair.a.seen.is_empty());
}

// ---- messages that never leave give back their introductions ---------------------------

#[test]
fn a_call_cancelled_while_queued_gives_back_its_references() {
    let mut pair = Pair::friends();
    pair.turn(To::A, |side| {
        side.endpoint.request(json!("later"), Some(json!([])), 1, None, || 0);
        let id = side.endpoint.export(1, &[], &[]).unwrap();
        let call = side.call_with(2, "echo", json!([{"$ref": id}]), json!([[id, [0]]])).unwrap();
        assert!(side.endpoint.cancel(call));
    });
    assert!(pair.a.seen.contains(&Seen::Freed(vec![1])));
    assert_eq!(pair.a.endpoint.references_held(), (0, 0));
    assert!(!pair.a.sent.iter().any(|m| m.get("refs").is_some()), "nothing with references went");
}

/// The first message `side` hands over, taken before the host sends it.
fn take_transmit(side: &mut Side) -> wiggum_rpc::core::Transmit<Json> {
    loop {
        match side.endpoint.poll() {
            Some(Event::Transmit(transmit)) => return transmit,
            Some(_) => {}
            None => panic!("nothing to send"),
        }
    }
}

#[test]
fn a_message_the_transport_refused_gives_back_its_references() {
    let mut pair = Pair::friends();
    let id = pair.a.endpoint.export(1, &[], &[]).unwrap();
    pair.a.call_with(1, "echo", json!([{"$ref": id}]), json!([[id, [0]]]));
    let refused = take_transmit(&mut pair.a);
    assert_eq!(pair.a.endpoint.transmit_failed(refused, "DataCloneError", |_| false), Some((1, 1)));
    pair.a.end_turn();
    assert!(pair.a.seen.contains(&Seen::Freed(vec![id])));
    // A notification too.
    let id = pair.a.endpoint.export(1, &[], &[]).unwrap();
    pair.a.endpoint.notify_with_refs(json!("note"), Some(json!([{"$ref": id}])), json!([[id, [0]]])).unwrap();
    pair.a.endpoint.flush();
    let refused = take_transmit(&mut pair.a);
    pair.a.endpoint.transmit_failed(refused, "DataCloneError", |_| false);
    pair.a.end_turn();
    assert!(pair.a.seen.contains(&Seen::Freed(vec![id])));
    assert_eq!(pair.a.endpoint.references_held(), (0, 0));
}

#[test]
fn a_result_the_transport_refused_goes_as_an_error_without_references() {
    let mut pair = Pair::friends();
    pair.turn(To::A, |side| {
        side.endpoint.request(json!("later"), Some(json!([])), 1, None, || 0);
    });
    pair.run();
    let call = pair.b.later.remove(0);
    let id = pair.b.endpoint.export(1, &[], &[]).unwrap();
    pair.b.endpoint.complete_with_refs(call, json!({"$ref": id}), json!([[id, []]]));
    let refused = take_transmit(&mut pair.b);
    pair.b.endpoint.transmit_failed(refused, "DataCloneError", |_| false);
    let out = pair.b.end_turn();
    assert_eq!(out[0]["error"]["code"], json!(-32603));
    assert_eq!(out[0].get("refs"), None);
    assert!(pair.b.seen.contains(&Seen::Freed(vec![id])));
    assert_eq!(pair.b.endpoint.references_held(), (0, 0));
}

#[test]
fn a_replaced_session_fails_a_held_call_that_carries_references() {
    let mut pair = in_session();
    lose_connection(&mut pair, 10);
    pair.turn(To::A, |side| {
        let id = side.endpoint.export(1, &[], &[]).unwrap();
        side.call_with(7, "echo", json!([{"$ref": id}]), json!([[id, [0]]]));
        side.endpoint.request(json!("echo"), Some(json!(["plain"])), 8, None, || 0);
    });
    let setup = SessionSetup::Server { id: "s-2".into(), grace_ms: GRACE, max_kept: 1_000 };
    pair.b = Side::of(Endpoint::with_session(Config { handshake: Handshake::Off, ..referring() }, None, Some(setup)));
    pair.turn(To::A, |side| side.endpoint.connection_opened());
    pair.run();
    assert_eq!(pair.a.settled.get(&7), Some(&Outcome::Failed(wiggum_rpc::core::Failure::ConnectionClosed)));
    assert_eq!(pair.a.settled.get(&8), Some(&Outcome::Result(json!(["plain"]))), "a plain held call goes on");
    assert!(!pair.b.seen.iter().any(|seen| matches!(seen, Seen::Stubs(_))));
    assert_eq!(pair.a.endpoint.references_held(), (0, 0));
}

// ---- many, and hostile ---------------------------------------------------------------

#[test]
fn a_hundred_thousand_references_made_and_released_in_rounds_leave_nothing_behind() {
    let mut pair = Pair::friends();
    let mut last = 0;
    for _ in 0..100 {
        pair.turn(To::A, |side| {
            let first = side.endpoint.export(1_000, &[], &[]).unwrap();
            assert_eq!(first, last + 1, "ids are never reused");
            last = first + 999;
            let refs: Vec<Json> = (first..=last).map(|id| json!([id, [0]])).collect();
            side.endpoint.notify_with_refs(json!("note"), Some(json!([0])), Json::Array(refs)).unwrap();
        });
        pair.run();
        assert_eq!(pair.b.endpoint.references_held(), (0, 1_000));
        pair.turn(To::B, |side| {
            for id in last - 999..=last {
                side.endpoint.release(id, 1);
            }
        });
        pair.run();
        assert_eq!(pair.a.endpoint.references_held(), (0, 0));
        assert_eq!(pair.b.endpoint.references_held(), (0, 0));
    }
    let freed: usize = pair.a.seen.iter().map(|seen| if let Seen::Freed(ids) = seen { ids.len() } else { 0 }).sum();
    assert_eq!(freed, 100_000);
    assert!(pair.a.endpoint.is_idle() && pair.b.endpoint.is_idle());
}

#[test]
fn hostile_refs_and_releases_never_panic_and_never_count_below_zero() {
    let mut pair = Pair::friends();
    send_callback(&mut pair, 1);
    pair.run();
    let values = [
        json!(null),
        json!(true),
        json!("refs"),
        json!({}),
        json!([[]]),
        json!([[1]]),
        json!([[1, [0], 2]]),
        json!([[4294967295u64, [0]]]),
        json!([[4294967296u64, [0]]]),
        json!([[-4294967296i64, [0]]]),
        json!([[1e300, [0]]]),
        json!([[-1e-300, [0]]]),
        json!([["1", [0]]]),
        json!([[[1], [0]]]),
        json!([[{"id": 1}, [0]]]),
        json!([[1, "path"]]),
        json!([[-1, [0]], [-1, [0]]]),
        json!([[[[[[]]]]]]),
    ];
    for refs in values {
        for message in [
            json!({"jsonrpc": "2.0", "id": 5, "method": "echo", "params": [], "refs": refs}),
            json!({"jsonrpc": "2.0", "id": 5, "method": "$/ref/1", "params": [], "refs": refs}),
            json!({"jsonrpc": "2.0", "method": "note", "params": [], "refs": refs}),
            json!({"jsonrpc": "2.0", "id": 99, "result": [], "refs": refs}),
            json!({"jsonrpc": "2.0", "method": "$/release", "params": {"refs": refs}}),
            json!({"jsonrpc": "2.0", "method": "$/release", "params": refs}),
            json!([{"jsonrpc": "2.0", "id": 6, "method": "echo", "params": [], "refs": refs}, 7]),
        ] {
            pair.a.hear(message.clone());
            pair.b.hear(message);
        }
    }
    // Whatever came, A's callback is live (never freed by bad input) or freed once.
    let freed = pair.a.seen.iter().filter(|seen| matches!(seen, Seen::Freed(_))).count();
    assert!(freed <= 1);
    let (exports, stubs) = pair.b.endpoint.references_held();
    assert!(exports == 0 && stubs >= 1, "B still holds A's callback");
}

// ---- a property: random exports, calls, releases, passes back and interleavings ----------

#[derive(Clone, Debug)]
enum Op {
    /// A side sends `new` fresh references, `again` of its live exports and `back` of its stubs.
    Send { from_a: bool, new: u32, again: usize, back: usize, request: bool },
    /// A side drops one of its stubs.
    Release { from_a: bool, pick: usize },
    /// One message in transit to a side arrives.
    Deliver { to_a: bool },
    /// The connection closes under both sides (what was in transit is lost).
    Close,
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        6 => (any::<bool>(), 0..3u32, 0..2usize, 0..2usize, any::<bool>())
            .prop_map(|(from_a, new, again, back, request)| Op::Send { from_a, new, again, back, request }),
        4 => (any::<bool>(), any::<usize>()).prop_map(|(from_a, pick)| Op::Release { from_a, pick }),
        8 => any::<bool>().prop_map(|to_a| Op::Deliver { to_a }),
        1 => Just(Op::Close),
    ]
}

/// What a test knows of one side: the ids it exported, and the stubs it holds.
#[derive(Default)]
struct Model {
    exported: Vec<u32>,
    held: BTreeMap<u32, u32>,
    stubs_seen: usize,
    calls: u32,
    /// Exports live when a connection closed: dropped, never freed.
    dropped: Vec<u32>,
}

impl Model {
    /// Counts the stubs a side's new events brought.
    fn absorb(&mut self, side: &Side) {
        for seen in &side.seen[self.stubs_seen..] {
            if let Seen::Stubs(refs) = seen {
                for entry in refs.as_array().unwrap() {
                    let id = entry[0].as_i64().unwrap();
                    if id > 0 {
                        *self.held.entry(id as u32).or_default() += 1;
                    }
                }
            }
        }
        self.stubs_seen = side.seen.len();
    }
}

fn apply(pair: &mut Pair, models: &mut [Model; 2], op: &Op) {
    match *op {
        Op::Send { from_a, new, again, back, request } => {
            let (to, model) = if from_a { (To::A, &mut models[0]) } else { (To::B, &mut models[1]) };
            let side = if from_a { &pair.a } else { &pair.b };
            let gone = |id: &u32| {
                model.dropped.contains(id)
                    || side.seen.iter().any(|seen| matches!(seen, Seen::Freed(ids) if ids.contains(id)))
            };
            let live: Vec<u32> = model.exported.iter().copied().filter(|id| !gone(id)).collect();
            let again: Vec<u32> = live.into_iter().take(again).collect();
            let back: Vec<u32> = model.held.keys().copied().take(back).collect();
            let mut refs = Vec::new();
            pair.turn(to, |side| {
                let Ok(first) = side.endpoint.export(new, &again, &back) else { return };
                model.exported.extend(first..first + new);
                refs.extend((first..first + new).chain(again.iter().copied()).map(|id| json!([id, [0]])));
                refs.extend(back.iter().map(|id| json!([-(*id as i64), [0]])));
                if request {
                    model.calls += 1;
                    side.call_with(model.calls, "echo", json!([0]), Json::Array(refs));
                } else {
                    side.endpoint.notify_with_refs(json!("note"), Some(json!([0])), Json::Array(refs)).unwrap();
                }
            });
        }
        Op::Release { from_a, pick } => {
            let (to, model) = if from_a { (To::A, &mut models[0]) } else { (To::B, &mut models[1]) };
            let Some(&id) = model.held.keys().nth(pick % model.held.len().max(1)) else { return };
            let count = model.held.get_mut(&id).unwrap();
            *count -= 1;
            if *count == 0 {
                model.held.remove(&id);
            }
            pair.turn(to, |side| side.endpoint.release(id, 1));
        }
        Op::Deliver { to_a } => {
            pair.deliver(if to_a { To::A } else { To::B });
        }
        Op::Close => {
            pair.to_a.clear();
            pair.to_b.clear();
            for (model, side) in models.iter_mut().zip([&pair.a, &pair.b]) {
                let freed =
                    |id: &u32| side.seen.iter().any(|seen| matches!(seen, Seen::Freed(ids) if ids.contains(id)));
                let live: Vec<u32> =
                    model.exported.iter().copied().filter(|id| !freed(id) && !model.dropped.contains(id)).collect();
                model.dropped.extend(live);
                model.held.clear();
            }
            pair.turn(To::A, |side| side.endpoint.connection_closed());
            pair.turn(To::B, |side| side.endpoint.connection_closed());
            pair.to_a.clear();
            pair.to_b.clear();
        }
    }
    models[0].absorb(&pair.a);
    models[1].absorb(&pair.b);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(500))]

    #[test]
    fn every_export_is_freed_once_and_every_stub_comes_with_its_payload(ops in proptest::collection::vec(op(), 1..60)) {
        let mut pair = Pair::friends();
        let mut models = [Model::default(), Model::default()];
        for op in &ops {
            apply(&mut pair, &mut models, op);
        }
        pair.run();
        models[0].absorb(&pair.a);
        models[1].absorb(&pair.b);
        // Each side drops every stub it holds.
        for (from_a, model) in models.iter_mut().enumerate().map(|(at, model)| (at == 0, model)) {
            let held = std::mem::take(&mut model.held);
            pair.turn(if from_a { To::A } else { To::B }, |side| {
                for (id, count) in held {
                    side.endpoint.release(id, count);
                }
            });
        }
        pair.run();
        for (side, model) in [(&pair.a, &models[0]), (&pair.b, &models[1])] {
            for (at, seen) in side.seen.iter().enumerate() {
                if matches!(seen, Seen::Stubs(_)) {
                    let next = side.seen.get(at + 1);
                    prop_assert!(matches!(next, Some(Seen::Invoke(_) | Seen::Notify(_) | Seen::Settled(_))), "{:?}", next);
                }
            }
            let mut freed: Vec<u32> = side.seen.iter().filter_map(|seen| match seen {
                Seen::Freed(ids) => Some(ids.clone()),
                _ => None,
            }).flatten().collect();
            freed.extend(&model.dropped);
            freed.sort_unstable();
            let mut exported = model.exported.clone();
            exported.sort_unstable();
            prop_assert_eq!(freed, exported, "every export freed exactly once, or dropped with its connection");
            prop_assert_eq!(side.endpoint.references_held(), (0, 0));
            prop_assert!(side.endpoint.is_idle());
        }
    }
}

#[test]
fn refs_from_a_peer_that_did_not_offer_references_or_from_a_stranger_are_data() {
    let plain = Config { handshake: Handshake::Announce, ..Config::new(Roles::PEER) };
    let mut pair = Pair::new(referring(), plain);
    let out = pair.a.hear(json!({"jsonrpc": "2.0", "id": 1, "method": "echo", "params": [], "refs": [[3, [0]]]}));
    assert_eq!(out, [json!({"jsonrpc": "2.0", "id": 1, "result": []})]);
    let out = pair.a.hear(json!({"method": "echo", "refs": [[3, [0]]]}));
    assert!(out.is_empty(), "not ours: nothing goes back");
    assert!(!pair.a.seen.iter().any(|seen| matches!(seen, Seen::Stubs(_))));
    assert!(releases(&pair.a.sent).is_empty());
}

#[test]
fn an_envelope_read_by_the_host_brings_its_refs_alike() {
    let mut pair = Pair::friends();
    let message = json!({"jsonrpc": "2.0", "id": 1, "method": "echo", "params": [{"$ref": 3}], "refs": [[3, [0]]]});
    let envelope = wiggum_rpc::core::Envelope::read(&message);
    pair.a.endpoint.receive_envelope_with_refs(envelope, message.get("refs").cloned(), Framing::Object);
    pair.a.end_turn();
    assert_eq!(pair.a.seen, [Seen::Stubs(json!([[3, [0]]])), Seen::Invoke(json!([{"$ref": 3}]))]);
    assert_eq!(pair.a.endpoint.references_held(), (0, 1));
}

// ---- calls made before the peer is heard ----------------------------------------------

/// Two sides that have not exchanged anything yet (their hellos, if any, in transit).
fn unheard(a: Config, b: Config) -> Pair {
    let mut pair = Pair { a: Side::new(a), b: Side::new(b), to_a: VecDeque::new(), to_b: VecDeque::new() };
    pair.to_b.extend(pair.a.end_turn());
    pair.to_a.extend(pair.b.end_turn());
    pair
}

/// Messages with `refs` a side sent, batch members included.
fn sent_refs(side: &Side) -> usize {
    let members = side.sent.iter().flat_map(|m| m.as_array().cloned().unwrap_or_else(|| vec![m.clone()]));
    members.filter(|m| m.get("refs").is_some()).count()
}

#[test]
fn a_call_with_references_waits_for_the_peers_hello_then_goes() {
    let mut pair = unheard(referring(), referring());
    pair.turn(To::A, |side| {
        let id = side.endpoint.export(1, &[], &[]).unwrap();
        side.call_with(1, "echo", json!([{"$ref": id}]), json!([[id, [0]]]));
    });
    assert_eq!(sent_refs(&pair.a), 0, "held for the hello");
    pair.run();
    assert_eq!(sent_refs(&pair.a), 1);
    assert_eq!(pair.b.seen[..2], [Seen::Stubs(json!([[1, [0]]])), Seen::Invoke(json!([{"$ref": 1}]))]);
    assert_eq!(pair.a.settled.get(&1), Some(&Outcome::Result(json!([{"$ref": 1}]))));
}

#[test]
fn without_a_handshake_this_side_says_hello_once_to_have_references_answered() {
    let off = Config { handshake: Handshake::Off, ..referring() };
    let mut pair = unheard(off, off);
    assert!(pair.a.sent.is_empty() && pair.b.sent.is_empty());
    pair.turn(To::A, |side| {
        for waiter in 1..=2 {
            let id = side.endpoint.export(1, &[], &[]).unwrap();
            side.call_with(waiter, "echo", json!([{"$ref": id}]), json!([[id, [0]]]));
        }
    });
    assert_eq!(pair.a.sent.len(), 1, "one hello, the calls held");
    assert_eq!(pair.a.sent[0]["method"], json!("$/ready"));
    assert_eq!(pair.a.sent[0]["params"]["ack"], json!(false));
    // Held by the other side only once sent: nothing has gone yet.
    assert_eq!(pair.a.endpoint.references_held(), (0, 0));
    pair.run();
    assert_eq!(sent_refs(&pair.a), 2);
    assert_eq!(pair.a.settled.len(), 2);
    assert!(pair.a.settled.values().all(|outcome| matches!(outcome, Outcome::Result(_))));
}

#[test]
fn a_held_call_fails_when_the_peers_hello_does_not_offer_references() {
    let plain = Config { handshake: Handshake::Announce, ..Config::new(Roles::PEER) };
    let mut pair = unheard(referring(), plain);
    pair.turn(To::A, |side| {
        let id = side.endpoint.export(1, &[], &[]).unwrap();
        side.call_with(1, "echo", json!([{"$ref": id}]), json!([[id, [0]]]));
    });
    pair.run();
    assert!(matches!(pair.a.error(1), Some(error) if error.code == -32602));
    assert!(pair.a.seen.contains(&Seen::Freed(vec![1])), "its introduction given back");
    assert_eq!(sent_refs(&pair.a), 0);
    assert_eq!(pair.a.endpoint.references_held(), (0, 0));
}

#[test]
fn toward_a_stranger_that_never_answers_a_held_call_times_out_unsent() {
    let off = Config { handshake: Handshake::Off, ..referring() };
    let mut side = Side::new(off);
    let id = side.endpoint.export(1, &[], &[]).unwrap();
    let options = CallOptions { timeout_ms: Some(50), ..CallOptions::default() };
    side.endpoint.request_with_refs(json!("echo"), Some(json!([{"$ref": id}])), json!([[id, [0]]]), 1, options, || 0);
    side.end_turn();
    assert_eq!(side.endpoint.references_held(), (0, 0), "nothing was sent: the stranger holds nothing");
    // The stranger's own traffic says nothing of references: the call keeps waiting.
    side.hear(json!({"jsonrpc": "2.0", "method": "hello", "params": []}));
    side.endpoint.handle_timeout(50);
    side.end_turn();
    assert_eq!(side.settled.get(&1), Some(&Outcome::Failed(wiggum_rpc::core::Failure::Timeout { sent: false })));
    assert!(side.seen.contains(&Seen::Freed(vec![id])));
    assert_eq!(sent_refs(&side), 0);
    assert!(side.endpoint.is_idle());
}

#[test]
fn a_notification_with_references_toward_an_unheard_peer_is_refused_at_once() {
    let mut pair = unheard(referring(), referring());
    let refused = pair.a.endpoint.notify_with_refs(json!("note"), Some(json!([])), json!([]));
    assert_eq!(refused.unwrap_err().code, -32602);
    // What it introduced (the export made before it) is given back: nothing was sent.
    pair.turn(To::A, |side| {
        let id = side.endpoint.export(1, &[], &[]).unwrap();
        let refused = side.endpoint.notify_with_refs(json!("note"), Some(json!([{"$ref": id}])), json!([[id, [0]]]));
        assert_eq!(refused.unwrap_err().code, -32602);
    });
    assert!(pair.a.seen.contains(&Seen::Freed(vec![1])));
    assert_eq!(sent_refs(&pair.a), 0);
    assert_eq!(pair.a.endpoint.references_held(), (0, 0));
}

#[test]
fn a_held_call_cancelled_gives_back_its_references() {
    let mut pair = unheard(referring(), referring());
    pair.turn(To::A, |side| {
        let id = side.endpoint.export(1, &[], &[]).unwrap();
        let call = side.call_with(1, "echo", json!([{"$ref": id}]), json!([[id, [0]]])).unwrap();
        assert!(side.endpoint.cancel(call));
    });
    pair.run();
    assert!(pair.a.seen.contains(&Seen::Freed(vec![1])));
    assert_eq!(sent_refs(&pair.a), 0);
    assert!(pair.a.endpoint.is_idle());
}
