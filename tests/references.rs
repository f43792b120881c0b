//! Native tests of functions and objects by reference: two endpoints
//! exchanging JSON on a fake clock. The offer in `$/ready`, the tables of
//! exports and imports, `$/release`, calls to `$/ref/<id>`, references that
//! arrive and those released because nothing took them, and the ends of a
//! connection.
#![cfg(all(not(target_arch = "wasm32"), feature = "references"))]

use std::collections::{BTreeMap, VecDeque};

use serde_json::{json, Value as Json};
use wiggum_rpc::core::{
    json as wire, CallId, Capabilities, Config, Dialect, Endpoint, Event, Framing, Handshake, Outcome, ReferenceEvent,
    Roles,
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
        let mut endpoint = Endpoint::new(config);
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
                Event::Invoke { call, handler, params } => {
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
        let mut pair = Pair { a: Side::new(a), b: Side::new(b), to_a: VecDeque::new(), to_b: VecDeque::new() };
        pair.to_b.extend(pair.a.end_turn());
        pair.to_a.extend(pair.b.end_turn());
        pair.run();
        pair
    }

    fn friends() -> Pair {
        Pair::new(referring(), referring())
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
