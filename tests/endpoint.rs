//! Native tests of the endpoint state machine: two endpoints exchanging
//! messages in memory on a fake clock (handshake, batching toward friends and
//! strangers, batch answers, timeouts on both clocks, cancellation in every
//! state, streams, connection loss, destroy), and a property test of random
//! interleavings in which every call settles exactly once and nothing stays
//! behind.
#![cfg(not(target_arch = "wasm32"))]

use std::collections::{BTreeMap, VecDeque};

use proptest::prelude::*;
use serde_json::{json, Value as Json};
use wiggum_rpc::core::{
    json as wire, BatchPolicy, Batching, CallId, CallOptions, Cancellation, Capabilities, Config, Dialect, Endpoint,
    Envelope, ErrorObject, Event, Failure, Framing, Handshake, Kind, Limits, Outcome, Roles, SessionSetup, Undelivered,
    TICK_MS,
};

/// A handler of the test endpoints.
#[derive(Clone, Debug, PartialEq)]
enum Handler {
    /// Answers its params at once.
    Echo,
    /// Fails at once with code 7.
    Fail,
    /// Answers when the test says so (`Side::finish`).
    Later,
    /// Sends its params' elements as chunks, then answers `"done"`.
    Stream,
}

/// One endpoint and what its host saw.
struct Side {
    endpoint: Endpoint<Json, Handler, u32>,
    /// What it sent, in order, as the wire shows it.
    sent: Vec<Json>,
    settled: BTreeMap<u32, Outcome<Json>>,
    /// Waiters settled more than once (must stay empty).
    twice: Vec<u32>,
    chunks: Vec<(u32, Json)>,
    later: Vec<CallId>,
    cancelled: Vec<CallId>,
    check_expired: Vec<CallId>,
    /// Calls served whose caller's deadline passed, as the core said.
    deadline_passed: Vec<CallId>,
    notified: Vec<Json>,
    peer: Option<Capabilities>,
    flush_due: bool,
    /// The transport refuses any message whose JSON holds this text (as a
    /// structured clone refuses a function); what the core sent instead follows.
    refuses: Option<&'static str>,
    /// Calls the core gave back as unsendable: (id, waiter).
    unsent: Vec<(u64, u32)>,
    /// The presence names of the other side the core asked to watch.
    watching: Vec<String>,
    /// Handlers the core said may stream again.
    may_stream: Vec<CallId>,
    /// Progress of this side's calls, in order.
    progress: Vec<(u32, Json)>,
    /// Of each message sent, in order: whether it goes in the packed form.
    packed: Vec<bool>,
    /// The metadata each handler run was given, in order.
    metas: Vec<Option<Json>>,
}

impl Side {
    fn new(config: Config) -> Side {
        Side::with_presence(config, None)
    }

    fn with_presence(config: Config, presence: Option<&str>) -> Side {
        let mut endpoint = Endpoint::with_presence(config, presence.map(String::from));
        for (name, handler) in [("echo", Handler::Echo), ("fail", Handler::Fail), ("later", Handler::Later)] {
            endpoint.set_method(name, handler);
        }
        endpoint.set_method("stream", Handler::Stream);
        endpoint.set_notification("note", Handler::Echo);
        Side {
            endpoint,
            sent: Vec::new(),
            settled: BTreeMap::new(),
            twice: Vec::new(),
            chunks: Vec::new(),
            later: Vec::new(),
            cancelled: Vec::new(),
            check_expired: Vec::new(),
            deadline_passed: Vec::new(),
            notified: Vec::new(),
            peer: None,
            flush_due: false,
            refuses: None,
            unsent: Vec::new(),
            watching: Vec::new(),
            may_stream: Vec::new(),
            progress: Vec::new(),
            packed: Vec::new(),
            metas: Vec::new(),
        }
    }

    /// Runs the host's side of every event; returns what went on the wire.
    fn drain(&mut self) -> Vec<Json> {
        let mut out = Vec::new();
        while let Some(event) = self.endpoint.poll() {
            match event {
                Event::Transmit(transmit) => {
                    self.packed.push(self.endpoint.packs(&transmit));
                    let json = wire::transmit(&transmit);
                    match self.refuses {
                        Some(marker) if json.to_string().contains(marker) => {
                            let sendable = |value: &Json| !value.to_string().contains(marker);
                            let unsent = self.endpoint.transmit_failed(transmit, "DataCloneError", sendable);
                            self.unsent.extend(unsent);
                        }
                        _ => out.push(json),
                    }
                }
                Event::Invoke { call, handler, params, meta } => match (self.metas.push(meta), handler).1 {
                    Handler::Echo => self.endpoint.complete(call, Ok(params.unwrap_or(Json::Null))),
                    Handler::Fail => self.endpoint.complete(call, Err(ErrorObject::new(7, "failed"))),
                    Handler::Later => self.later.push(call),
                    Handler::Stream => {
                        for chunk in params.and_then(|p| p.as_array().cloned()).unwrap_or_default() {
                            assert!(self.endpoint.emit(call, chunk));
                        }
                        self.endpoint.complete(call, Ok(json!("done")));
                    }
                },
                Event::Notify { params, .. } => self.notified.push(params.unwrap_or(Json::Null)),
                Event::Unhandled { .. } => {}
                Event::Settled { waiter, outcome, .. } => {
                    if self.settled.insert(waiter, outcome).is_some() {
                        self.twice.push(waiter);
                    }
                }
                Event::Chunk { waiter, chunk, .. } => self.chunks.push((waiter, chunk.unwrap_or(Json::Null))),
                Event::Progress { waiter, value, .. } => self.progress.push((waiter, value)),
                Event::Cancelled { call } => self.cancelled.push(call),
                Event::CheckExpired { call } => self.check_expired.push(call),
                Event::DeadlinePassed { call } => self.deadline_passed.push(call),
                Event::PeerReady(capabilities) => self.peer = Some(capabilities),
                Event::WatchPeer(presence) => self.watching.push(presence),
                Event::MayStream { call } => self.may_stream.push(call),
                Event::ScheduleFlush => self.flush_due = true,
                Event::SessionEnded => {}
                #[cfg(feature = "references")]
                Event::References(_) => {}
            }
        }
        self.sent.extend(out.iter().cloned());
        out
    }

    /// The end of a turn: its microtasks (the flush) run.
    fn end_turn(&mut self) -> Vec<Json> {
        let mut out = self.drain();
        while std::mem::take(&mut self.flush_due) {
            self.endpoint.flush();
            out.extend(self.drain());
        }
        out
    }

    fn call(&mut self, waiter: u32, method: &str, params: Json, timeout: Option<u64>, now: u64) -> Option<u64> {
        self.endpoint.request(json!(method), Some(params), waiter, timeout, || now)
    }

    /// A call with metadata: `meta` goes to a peer that offered it.
    fn call_with_meta(&mut self, waiter: u32, method: &str, params: Json, meta: Json) -> Option<u64> {
        let options = CallOptions::default();
        let kind = Some(Kind::Array);
        #[cfg(not(feature = "references"))]
        let made = self.endpoint.request_of_kind(json!(method), Some(params), Some(meta), kind, waiter, options, || 0);
        #[cfg(feature = "references")]
        let made =
            self.endpoint.request_of_kind(json!(method), Some(params), Some(meta), None, kind, waiter, options, || 0);
        made.ok()
    }

    fn finish(&mut self, index: usize, outcome: Result<Json, ErrorObject<Json>>) {
        let call = self.later.remove(index);
        self.endpoint.complete(call, outcome);
    }

    fn result(&self, waiter: u32) -> Option<&Json> {
        match self.settled.get(&waiter) {
            Some(Outcome::Result(result)) => Some(result),
            _ => None,
        }
    }
}

/// Two endpoints, the messages between them, and the time.
struct Pair {
    a: Side,
    b: Side,
    to_a: VecDeque<Json>,
    to_b: VecDeque<Json>,
    now: u64,
}

#[derive(Clone, Copy, PartialEq)]
enum To {
    A,
    B,
}

impl Pair {
    fn new(a: Config, b: Config) -> Pair {
        let mut pair = Pair { a: Side::new(a), b: Side::new(b), to_a: VecDeque::new(), to_b: VecDeque::new(), now: 1 };
        pair.to_b.extend(pair.a.end_turn());
        pair.to_a.extend(pair.b.end_turn());
        pair
    }

    fn friends() -> Pair {
        let config = Config { handshake: Handshake::Announce, ..Config::new(Roles::PEER) };
        let mut pair = Pair::new(config, config);
        pair.run();
        pair
    }

    /// Runs `turn` on one side as user code in one task, then its microtasks.
    fn turn(&mut self, to: To, turn: impl FnOnce(&mut Side, u64)) {
        let now = self.now;
        let (side, outbox) = match to {
            To::A => (&mut self.a, &mut self.to_b),
            To::B => (&mut self.b, &mut self.to_a),
        };
        turn(side, now);
        outbox.extend(side.end_turn());
    }

    /// Delivers one message, as one task of its receiver (which reads the
    /// clock as it arrives, as the npm package's reader does).
    fn deliver(&mut self, to: To) -> bool {
        let (inbox, side, outbox) = match to {
            To::A => (&mut self.to_a, &mut self.a, &mut self.to_b),
            To::B => (&mut self.to_b, &mut self.b, &mut self.to_a),
        };
        let Some(message) = inbox.pop_front() else { return false };
        side.endpoint.arrived_at(self.now);
        side.endpoint.receive(&message, Framing::Object);
        outbox.extend(side.end_turn());
        true
    }

    /// Delivers until nothing is in transit.
    fn run(&mut self) {
        while self.deliver(To::A) | self.deliver(To::B) {}
    }

    /// A's call `waiter` to B's `later`, delivered and running: its id.
    fn served_later(&mut self, waiter: u32) -> u64 {
        let mut id = 0;
        self.turn(To::A, |side, now| id = side.call(waiter, "later", json!([]), None, now).unwrap());
        self.run();
        id
    }

    fn advance(&mut self, ms: u64) {
        self.now += ms;
        let now = self.now;
        self.turn(To::A, |side, _| side.endpoint.handle_timeout(now));
        self.turn(To::B, |side, _| side.endpoint.handle_timeout(now));
    }
}

fn is_batch(message: &Json) -> bool {
    message.is_array()
}

fn methods(sent: &[Json]) -> Vec<String> {
    sent.iter()
        .map(|m| match m {
            Json::Array(members) => format!("[{}]", methods(members).join(",")),
            _ => m.get("method").and_then(Json::as_str).unwrap_or("response").to_owned(),
        })
        .collect()
}

// ---- the handshake and batching -------------------------------------------------

#[test]
fn friends_learn_each_others_capabilities() {
    let pair = Pair::friends();
    let both = Capabilities {
        batches: true,
        split_batch_answers: true,
        max_batch: 1000,
        stream_credit: true,
        progress: true,
        packed: false,
        meta: false,
        #[cfg(feature = "references")]
        references: false,
    };
    assert_eq!(pair.a.peer, Some(both));
    assert_eq!(pair.b.peer, Some(both));
    assert_eq!(
        pair.a.sent[0],
        json!({"jsonrpc": "2.0", "method": "$/ready", "params": {"ack": false, "batches": true, "splitBatchAnswers": true, "maxBatch": 1000, "streamCredit": true, "progress": true}})
    );
    assert_eq!(pair.a.sent[1]["params"]["ack"], json!(true), "each hello is answered");
}

#[test]
fn a_burst_between_friends_goes_as_one_batch() {
    let mut pair = Pair::friends();
    let before = pair.a.sent.len();
    pair.turn(To::A, |side, now| {
        for n in 0..4 {
            side.call(n, "echo", json!([n]), None, now);
        }
    });
    assert_eq!(
        methods(&pair.a.sent[before..]),
        ["echo", "[echo,echo,echo]"],
        "the first alone, the rest at the turn's end"
    );
    pair.run();
    for n in 0..4 {
        assert_eq!(pair.a.result(n), Some(&json!([n])));
    }
    assert!(pair.a.endpoint.is_idle() && pair.b.endpoint.is_idle());
}

#[test]
fn batches_go_packed_only_between_two_sides_that_offered_the_form() {
    let offering = Config { handshake: Handshake::Announce, packed: true, ..Config::new(Roles::PEER) };
    let plain = Config { handshake: Handshake::Announce, ..Config::new(Roles::PEER) };
    let mut pair = Pair::new(offering, offering);
    pair.run();
    assert_eq!(pair.a.sent[0]["params"]["packed"], json!(true), "the hello offers it");
    assert!(pair.a.peer.is_some_and(|peer| peer.packed));

    // A burst of calls: the first alone, the rest as a batch, packed.
    let (sent, answered) = (pair.a.packed.len(), pair.b.packed.len());
    pair.turn(To::A, |side, now| {
        for n in 0..4 {
            side.call(n, "echo", json!([n]), None, now);
        }
    });
    pair.run();
    assert_eq!(pair.a.packed[sent..], [false, true]);
    assert_eq!(pair.b.packed[answered..], [false, true], "the answers: the lone call's alone, the batch's packed");
    for n in 0..4 {
        assert_eq!(pair.a.result(n), Some(&json!([n])));
    }

    // Not a batch of one kind: calls and a notification; answers with an error among them.
    let (sent, answered) = (pair.a.packed.len(), pair.b.packed.len());
    pair.turn(To::A, |side, now| {
        side.call(10, "echo", json!([1]), None, now);
        side.call(11, "echo", json!([2]), None, now);
        side.endpoint.notify(json!("note"), Some(json!([3]))).unwrap();
        side.call(12, "fail", json!([]), None, now);
    });
    pair.run();
    assert_eq!(methods(&pair.a.sent[sent..]), ["echo", "[echo,note,fail]"]);
    assert_eq!(pair.a.packed[sent..], [false, false]);
    assert_eq!(pair.b.packed[answered..], [false, false], "a batch of answers with an error goes as the spec has it");

    // Toward a side that did not offer it, and from one that did not: never.
    for (a, b) in [(offering, plain), (plain, offering)] {
        let mut pair = Pair::new(a, b);
        pair.run();
        let (sent, answered) = (pair.a.sent.len(), pair.b.sent.len());
        pair.turn(To::A, |side, now| {
            for n in 0..4 {
                side.call(n, "echo", json!([n]), None, now);
            }
        });
        pair.run();
        assert!(pair.a.packed.iter().chain(&pair.b.packed).all(|packed| !packed));
        assert_eq!(methods(&pair.a.sent[sent..]), ["echo", "[echo,echo,echo]"]);
        assert_eq!(pair.b.sent.len() - answered, 2);
    }

    // A side in a session keeps its messages as sent: it does not offer the form.
    let session =
        Endpoint::<Json, Handler, u32>::with_session(offering, None, Some(SessionSetup::Client { max_kept: 100 }));
    let mut side = Side::new(offering);
    side.endpoint = session;
    let hello = side.end_turn();
    assert_eq!(hello[0]["method"], json!("$/ready"));
    assert_eq!(hello[0]["params"].get("packed"), None);
}

#[test]
fn metadata_crosses_only_between_two_sides_that_offered_it() {
    let offering = Config { handshake: Handshake::Announce, meta: true, ..Config::new(Roles::PEER) };
    let plain = Config { handshake: Handshake::Announce, ..Config::new(Roles::PEER) };
    let meta = json!({"traceparent": "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", "deadline": 300});

    let mut pair = Pair::new(offering, offering);
    pair.run();
    assert_eq!(pair.a.sent[0]["params"]["meta"], json!(true), "the hello offers it");
    let sent = pair.a.sent.len();
    pair.turn(To::A, |side, _| {
        side.call_with_meta(1, "echo", json!([1]), meta.clone());
    });
    assert_eq!(
        pair.a.sent[sent],
        json!({"jsonrpc": "2.0", "method": "echo", "params": [1], "id": pair.a.sent[sent]["id"], "meta": meta})
    );
    pair.run();
    assert_eq!(pair.b.metas, [Some(meta.clone())], "the handler is given it");
    assert_eq!(pair.a.result(1), Some(&json!([1])));
    // Each call of a batch keeps its own.
    pair.turn(To::A, |side, _| {
        for n in 2..5 {
            side.call_with_meta(n, "echo", json!([n]), json!({"n": n}));
        }
    });
    pair.run();
    assert_eq!(pair.b.metas[1..], [Some(json!({"n": 2})), Some(json!({"n": 3})), Some(json!({"n": 4}))]);

    // Toward a side that did not offer it, the request is the spec's; from one that did not, nothing reaches a handler.
    for (a, b) in [(offering, plain), (plain, offering)] {
        let mut pair = Pair::new(a, b);
        pair.run();
        let sent = pair.a.sent.len();
        pair.turn(To::A, |side, _| {
            side.call_with_meta(1, "echo", json!([1]), meta.clone());
        });
        assert_eq!(pair.a.sent[sent].get("meta"), None, "{:?}", pair.a.sent[sent]);
        pair.run();
        assert_eq!(pair.b.metas, [None]);
        assert_eq!(pair.a.result(1), Some(&json!([1])));
    }

    // A stranger's `meta` is data for a side that offered it; one that is not an object is none.
    let mut side = Side::new(offering);
    side.end_turn();
    for (given, seen) in
        [(meta.clone(), Some(meta.clone())), (json!("x"), None), (json!([1]), None), (json!(null), None)]
    {
        let message = json!({"jsonrpc": "2.0", "method": "echo", "params": [], "id": 7, "meta": given});
        side.endpoint.receive(&message, Framing::Text);
        let answer = side.end_turn();
        assert_eq!(answer, [json!({"jsonrpc": "2.0", "result": [], "id": 7})]);
        assert_eq!(side.metas.pop(), Some(seen));
    }
}

#[test]
fn a_served_call_ends_at_its_callers_deadline() {
    let offering = Config { handshake: Handshake::Announce, meta: true, ..Config::new(Roles::PEER) };
    let deadline_exceeded = Outcome::Error(ErrorObject::new(-32099, "Deadline exceeded"));
    let mut pair = Pair::new(offering, offering);
    pair.run();
    pair.now = 1_000;
    // A's call gives 300 ms and has no timeout of its own: only B's answer ends it.
    pair.turn(To::A, |side, _| {
        side.call_with_meta(1, "later", json!([]), json!({"deadline": 300}));
    });
    pair.run();
    assert_eq!(pair.b.later.len(), 1, "the handler runs");
    assert_eq!(
        pair.b.endpoint.poll_timeout().deadline,
        Some(1_301),
        "B's timer, from the arrival's reading (+1: it is rounded down)"
    );
    pair.advance(300);
    assert!(pair.b.deadline_passed.is_empty() && pair.a.settled.is_empty(), "not a millisecond early");
    pair.advance(1);
    pair.run();
    assert_eq!(pair.b.deadline_passed, pair.b.later, "the handler is told to stop");
    assert_eq!(pair.a.settled.get(&1), Some(&deadline_exceeded));
    assert!(pair.b.endpoint.is_idle(), "nothing of the call is left");
    // The handler that finishes after: nothing more goes.
    let sent = pair.b.sent.len();
    pair.turn(To::B, |side, _| side.finish(0, Ok(json!("late"))));
    pair.run();
    assert_eq!(pair.b.sent.len(), sent);
    assert!(pair.a.twice.is_empty());

    // Progress starts its time again, from the next reading (never early, at most a tick late).
    pair.turn(To::A, |side, _| {
        side.call_with_meta(2, "later", json!([]), json!({"deadline": 300}));
    });
    pair.run();
    pair.advance(200);
    let call = pair.b.later[0];
    pair.turn(To::B, |side, _| assert!(side.endpoint.progress(call, json!(0.5))));
    pair.run();
    assert_eq!(pair.a.progress, [(2, json!(0.5))]);
    assert!(pair.b.endpoint.poll_timeout().reading, "B wants a reading within a tick");
    pair.advance(TICK_MS); // The reading, at 1,601: the deadline 1,902.
    pair.advance(300);
    pair.run();
    assert!(!pair.a.settled.contains_key(&2), "300 ms after the reading, not yet");
    pair.advance(1);
    pair.run();
    assert_eq!(pair.a.settled.get(&2), Some(&deadline_exceeded));
    pair.turn(To::B, |side, _| side.finish(0, Ok(json!("late"))));

    // Answered in time, its bound goes with it; a late timer finds nothing.
    pair.turn(To::A, |side, _| {
        side.call_with_meta(3, "later", json!([]), json!({"deadline": 300}));
    });
    pair.run();
    pair.turn(To::B, |side, _| side.finish(0, Ok(json!("on time"))));
    pair.run();
    assert!(pair.b.endpoint.is_idle());
    pair.advance(1_000);
    assert_eq!(pair.a.result(3), Some(&json!("on time")));
    assert_eq!(pair.b.deadline_passed.len(), 2);

    // A message without a reading: the deadline counts from the next one.
    let mut side = Side::new(offering);
    side.end_turn();
    let call = |id: u32, meta: Json| json!({"jsonrpc": "2.0", "method": "later", "id": id, "meta": meta});
    side.endpoint.receive(&call(7, json!({"deadline": 250.5})), Framing::Text);
    side.end_turn();
    assert!(side.endpoint.poll_timeout().reading);
    side.endpoint.handle_timeout(5_000);
    assert_eq!(side.endpoint.poll_timeout().deadline, Some(5_252), "250.5 ms is 251: never early");
    side.endpoint.handle_timeout(5_251);
    assert!(side.end_turn().is_empty());
    side.endpoint.handle_timeout(5_252);
    assert_eq!(
        side.end_turn(),
        [json!({"jsonrpc": "2.0", "error": {"code": -32099, "message": "Deadline exceeded"}, "id": 7})]
    );

    // A stranger's deadline that no timer takes is none: the call waits for its handler.
    for (id, deadline) in [
        (8, json!("300")),
        (9, json!(-5)),
        (10, json!(0)),
        (11, json!(2_147_483_648u64)),
        (12, json!(null)),
        (13, json!([300])),
    ] {
        side.endpoint.receive(&call(id, json!({"deadline": deadline})), Framing::Text);
        side.end_turn();
    }
    assert_eq!(side.endpoint.poll_timeout(), Default::default(), "no timer, no reading");
    side.endpoint.handle_timeout(1 << 40);
    assert!(side.end_turn().is_empty());
    assert_eq!(side.deadline_passed.len(), 1);

    // A side that did not offer metadata reads no deadline in it.
    let mut plain = Side::new(Config { handshake: Handshake::Announce, ..Config::new(Roles::PEER) });
    plain.end_turn();
    plain.endpoint.arrived_at(0);
    plain.endpoint.receive(&call(1, json!({"deadline": 10})), Framing::Text);
    plain.end_turn();
    plain.endpoint.handle_timeout(1_000);
    assert!(plain.end_turn().is_empty());
    assert!(plain.deadline_passed.is_empty());
}

/// The seed's reference server: answers request objects one by one, ignores
/// everything else (arrays included), as `if (!("method" in msg)) return;` does.
fn reference_server(message: &Json) -> Option<Json> {
    let method = message.get("method")?.as_str()?;
    let id = message.get("id")?.clone();
    Some(match method {
        "echo" => json!({"jsonrpc": "2.0", "result": message.get("params"), "id": id}),
        _ => json!({"jsonrpc": "2.0", "error": {"code": -32601, "message": "Method not found"}, "id": id}),
    })
}

#[test]
fn a_stranger_gets_one_message_per_call_at_once_and_in_order() {
    for handshake in [Handshake::Off, Handshake::Announce] {
        let mut side = Side::new(Config { handshake, ..Config::new(Roles::CLIENT) });
        side.end_turn();
        let before = side.sent.len();
        for n in 0..3 {
            side.call(n, "echo", json!([n]), Some(10_000), 0);
            // At once: before the turn ends.
            assert_eq!(side.drain().len(), 1, "call {n} goes out as it is made");
        }
        let out = side.end_turn();
        assert!(out.is_empty());
        let sent: Vec<Json> = side.sent[before..].to_vec();
        assert!(!sent.iter().any(is_batch), "no arrays toward a stranger: {sent:?}");
        assert_eq!(sent.iter().map(|m| m["params"][0].clone()).collect::<Vec<_>>(), [json!(0), json!(1), json!(2)]);
        for message in &sent {
            let answer = reference_server(message).expect("the reference server answers each");
            side.endpoint.receive(&answer, Framing::Object);
        }
        side.end_turn();
        for n in 0..3 {
            assert_eq!(side.result(n), Some(&json!([n])));
        }
        assert!(side.endpoint.is_idle());
    }
}

#[test]
fn forced_batching_batches_toward_anyone() {
    let mut side = Side::new(Config { batching: Batching::Always, ..Config::new(Roles::CLIENT) });
    for n in 0..3 {
        side.call(n, "echo", json!([n]), None, 0);
    }
    assert_eq!(methods(&side.end_turn()), ["echo", "[echo,echo]"]);
}

#[test]
fn await_waits_for_the_other_sides_hello_not_for_the_connection() {
    let config = Config { handshake: Handshake::Await, meta: true, ..Config::new(Roles::CLIENT) };
    let mut side = Side::new(config);
    side.call_with_meta(1, "echo", json!([1]), json!({"token": "t"}));
    assert_eq!(methods(&side.end_turn()), ["$/ready"], "only the hello leaves");
    // The connection opens (a WebSocket): the call still waits, unlike with Hold.
    side.endpoint.connection_opened();
    assert_eq!(methods(&side.end_turn()), Vec::<String>::new());
    // The server's hello: the call goes, with its metadata, as the hello allows.
    let hello = json!({"jsonrpc": "2.0", "method": "$/ready", "params": {"ack": true, "meta": true}});
    side.endpoint.receive(&hello, Framing::Text);
    let out = side.end_turn();
    assert_eq!(methods(&out), ["echo"]);
    assert_eq!(out[0]["meta"], json!({"token": "t"}));
}

#[test]
fn hold_waits_for_the_other_side_and_says_when_it_never_came() {
    let mut side = Side::new(Config { handshake: Handshake::Hold, ..Config::new(Roles::CLIENT) });
    side.call(1, "echo", json!([1]), Some(500), 0);
    side.call(2, "echo", json!([2]), Some(5_000), 0);
    assert_eq!(methods(&side.end_turn()), ["$/ready"], "only the hello leaves");
    side.endpoint.handle_timeout(500);
    side.drain();
    assert_eq!(side.settled.get(&1), Some(&Outcome::Failed(Failure::Timeout { sent: false })));
    // The other side shows up: what still waits goes, alone (nothing was offered).
    side.endpoint.receive(&json!({"jsonrpc": "2.0", "method": "hello"}), Framing::Object);
    let out = side.end_turn();
    assert_eq!(methods(&out), ["echo"]);
    assert_eq!(out[0]["params"], json!([2]), "the timed-out call never goes out");
    assert_eq!(side.peer, Some(Capabilities::NONE));
}

#[test]
fn foreign_traffic_does_not_count_as_the_other_side() {
    let mut side = Side::new(Config { handshake: Handshake::Hold, ..Config::new(Roles::CLIENT) });
    side.call(1, "echo", json!([1]), None, 0);
    side.end_turn();
    for foreign in [json!({"type": "not-ours"}), json!("text"), json!({"jsonrpc": "1.0", "method": "x"})] {
        side.endpoint.receive(&foreign, Framing::Object);
        assert!(side.end_turn().is_empty());
    }
    assert_eq!(side.peer, None);
}

// ---- batch answers -----------------------------------------------------------------

/// The spec's mixed batch (section 7), with two of its calls answered later.
fn spec_batch() -> Json {
    json!([
        {"jsonrpc": "2.0", "method": "later", "params": [1, 2, 4], "id": "1"},
        {"jsonrpc": "2.0", "method": "note", "params": [7]},
        {"jsonrpc": "2.0", "method": "echo", "params": [42, 23], "id": "2"},
        {"foo": "boo"},
        {"jsonrpc": "2.0", "method": "foo.get", "params": {"name": "myself"}, "id": "5"},
        {"jsonrpc": "2.0", "method": "later", "id": "9"}
    ])
}

#[test]
fn a_strangers_batch_is_answered_with_one_array_after_all_its_members() {
    let mut server = Side::new(Config::new(Roles::SERVER));
    server.endpoint.receive(&spec_batch(), Framing::Object);
    let early = server.end_turn();
    assert!(early.is_empty(), "nothing before every member is done: {early:?}");
    server.finish(1, Ok(json!("nine")));
    assert!(server.end_turn().is_empty());
    server.finish(0, Ok(json!(7)));
    let out = server.end_turn();
    assert_eq!(out.len(), 1, "one array: {out:?}");
    let ids: Vec<Json> = out[0].as_array().unwrap().iter().map(|r| r["id"].clone()).collect();
    assert_eq!(ids, [json!("1"), json!("2"), Json::Null, json!("5"), json!("9")], "in request order");
    assert_eq!(out[0][2]["error"]["code"], json!(-32600));
    assert_eq!(out[0][3]["error"]["code"], json!(-32601));
    assert!(server.endpoint.is_idle());
}

#[test]
fn a_friends_batch_is_answered_as_it_settles() {
    let mut pair = Pair::friends();
    let before = pair.b.sent.len();
    pair.to_b.push_back(spec_batch());
    pair.deliver(To::B);
    assert_eq!(pair.b.sent[before..].len(), 1, "what settled at once went out at once");
    assert_eq!(pair.b.sent[before].as_array().unwrap().len(), 3);
    pair.turn(To::B, |side, _| side.finish(0, Ok(json!(7))));
    pair.turn(To::B, |side, _| side.finish(0, Ok(json!(9))));
    let arrays = &pair.b.sent[before..];
    assert_eq!(arrays.iter().map(|a| a.as_array().unwrap().len()).collect::<Vec<_>>(), [3, 1, 1]);
    assert!(pair.b.endpoint.is_idle());
}

#[test]
fn a_batch_read_member_by_member_is_answered_as_the_same_batch_read_whole() {
    // A host that reads each member's envelope itself (the wasm layer, one
    // crossing per member) hands the core what `receive` reads from the array.
    let mut whole = Side::new(Config::new(Roles::SERVER));
    whole.endpoint.receive(&spec_batch(), Framing::Object);
    let mut members = Side::new(Config::new(Roles::SERVER));
    let batch = spec_batch();
    let elements = batch.as_array().unwrap();
    assert!(members.endpoint.takes_batch(elements.len()));
    let read = elements.iter().map(|member| member.is_object().then(|| Envelope::read(member))).collect();
    members.endpoint.receive_members(read);
    for side in [&mut whole, &mut members] {
        assert!(side.end_turn().is_empty());
        side.finish(1, Ok(json!("nine")));
        side.finish(0, Ok(json!(7)));
    }
    let (a, b) = (whole.end_turn(), members.end_turn());
    assert_eq!(a, b);
    assert_eq!(a[0].as_array().unwrap().len(), 5);
    // A batch the core refuses (empty, too long, batches refused) is not read member by member.
    assert!(!members.endpoint.takes_batch(0));
    assert!(!members.endpoint.takes_batch(Limits::MAX_BATCH + 1));
    let refusing = Side::new(Config { batch_policy: BatchPolicy::Reject, ..Config::new(Roles::SERVER) });
    assert!(!refusing.endpoint.takes_batch(1));
}

// ---- timeouts -------------------------------------------------------------------------

#[test]
fn short_timeouts_run_on_the_callers_clock() {
    let mut side = Side::new(Config::new(Roles::CLIENT));
    side.call(1, "echo", json!([]), Some(500), 1_000);
    side.end_turn();
    assert_eq!(side.endpoint.poll_timeout().deadline, Some(1_500));
    assert!(!side.endpoint.poll_timeout().reading, "no tick for a short timeout");
    side.endpoint.handle_timeout(1_499);
    side.drain();
    assert!(side.settled.is_empty(), "never early");
    side.endpoint.handle_timeout(1_500);
    side.drain();
    assert_eq!(side.settled.get(&1), Some(&Outcome::Failed(Failure::Timeout { sent: true })));
    assert!(side.endpoint.is_idle());
}

#[test]
fn long_timeouts_run_on_the_coarse_clock() {
    let mut side = Side::new(Config::new(Roles::CLIENT));
    // No clock reading per call: `now` must not be asked for.
    side.endpoint.request(json!("echo"), None, 1, Some(2_000), || panic!("read the clock"));
    side.end_turn();
    assert!(side.endpoint.poll_timeout().reading, "the host reads the clock within a tick");
    // The tick comes up to TICK_MS after the call started: the deadline counts from it.
    side.endpoint.handle_timeout(10 + TICK_MS);
    assert_eq!(side.endpoint.poll_timeout(), wiggum_rpc::core::Timeouts { reading: false, deadline: Some(2_111) });
    side.endpoint.handle_timeout(2_110);
    side.drain();
    assert!(side.settled.is_empty());
    side.endpoint.handle_timeout(2_111);
    side.drain();
    assert!(matches!(side.settled.get(&1), Some(Outcome::Failed(Failure::Timeout { .. }))));
}

#[test]
fn a_late_answer_to_an_expired_call_settles_nothing() {
    let mut pair = Pair::friends();
    pair.turn(To::A, |side, now| {
        side.call(1, "later", json!([]), Some(100), now);
    });
    pair.run();
    pair.advance(100);
    assert!(matches!(pair.a.settled.get(&1), Some(Outcome::Failed(Failure::Timeout { sent: true }))));
    pair.turn(To::B, |side, _| side.finish(0, Ok(json!("late"))));
    pair.run();
    assert!(pair.a.twice.is_empty());
    assert!(pair.a.endpoint.is_idle() && pair.b.endpoint.is_idle());
}

// ---- cancellation ---------------------------------------------------------------------

#[test]
fn cancel_in_every_state() {
    let mut pair = Pair::friends();
    // Sent and being served: the server's handler hears of it, the caller settles.
    let id = pair.served_later(1);
    pair.turn(To::A, |side, _| assert!(side.endpoint.cancel(id)));
    assert_eq!(pair.a.settled.get(&1), Some(&Outcome::Failed(Failure::Cancelled)));
    pair.run();
    assert_eq!(pair.b.cancelled, [pair.b.later[0]]);
    // Its answer still goes, and settles nothing.
    pair.turn(To::B, |side, _| side.finish(0, Ok(json!(1))));
    pair.run();
    assert!(pair.a.twice.is_empty());
    // Already settled, or unknown: nothing.
    pair.turn(To::A, |side, _| assert!(!side.endpoint.cancel(id) && !side.endpoint.cancel(999)));
    // Queued for the turn's batch: it leaves the queue, no `$/cancelRequest` goes.
    let before = pair.a.sent.len();
    pair.turn(To::A, |side, now| {
        side.call(2, "echo", json!([2]), None, now);
        let queued = side.call(3, "echo", json!([3]), None, now).unwrap();
        assert!(side.endpoint.cancel(queued));
    });
    assert_eq!(methods(&pair.a.sent[before..]), ["echo"]);
    pair.run();
    assert_eq!(pair.a.result(2), Some(&json!([2])));
    assert_eq!(pair.a.settled.get(&3), Some(&Outcome::Failed(Failure::Cancelled)));
    // Held for a handshake: nothing ever goes.
    let mut held = Side::new(Config { handshake: Handshake::Hold, ..Config::new(Roles::CLIENT) });
    let id = held.call(1, "echo", json!([]), None, 0).unwrap();
    assert!(held.endpoint.cancel(id));
    held.endpoint.receive(&json!({"jsonrpc": "2.0", "method": "$/ready", "params": {"ack": true}}), Framing::Object);
    assert_eq!(methods(&held.end_turn()), ["$/ready"], "only the hello");
    // After destroy: nothing to cancel.
    pair.turn(To::A, |side, now| {
        let id = side.call(4, "later", json!([]), None, now).unwrap();
        side.endpoint.destroy();
        assert!(!side.endpoint.cancel(id));
    });
    assert_eq!(pair.a.settled.get(&4), Some(&Outcome::Failed(Failure::Destroyed)));
}

// ---- streams --------------------------------------------------------------------------

#[test]
fn chunks_arrive_in_order_before_the_answer() {
    let mut pair = Pair::friends();
    let before = pair.b.sent.len();
    pair.turn(To::A, |side, now| {
        side.call(1, "stream", json!(["a", "b", "c"]), None, now);
    });
    pair.run();
    assert_eq!(pair.a.chunks, [(1, json!("a")), (1, json!("b")), (1, json!("c"))]);
    assert_eq!(pair.a.result(1), Some(&json!("done")));
    let wire: Vec<String> = methods(&pair.b.sent[before..]);
    assert_eq!(wire.last().unwrap(), "response");
    assert!(wire.iter().flat_map(|m| m.split(',')).any(|m| m.contains("stream.end")), "{wire:?}");
}

#[test]
fn chunks_after_the_end_or_the_answer_belong_to_nothing() {
    let mut pair = Pair::friends();
    let id = pair.served_later(1);
    let chunk = |n: u64| json!({"jsonrpc": "2.0", "method": "stream.chunk", "params": {"id": id, "chunk": n}});
    pair.to_a.push_back(chunk(1));
    pair.to_a.push_back(json!({"jsonrpc": "2.0", "method": "stream.end", "params": {"id": id}}));
    pair.to_a.push_back(chunk(2));
    pair.run();
    assert_eq!(pair.a.chunks, [(1, json!(1))]);
    // A chunk for a string id "1" is not the call 1.
    pair.to_a
        .push_back(json!({"jsonrpc": "2.0", "method": "stream.chunk", "params": {"id": id.to_string(), "chunk": 3}}));
    pair.run();
    assert_eq!(pair.a.chunks.len(), 1);
    // The server side: once answered, emit does nothing.
    let call = pair.b.later[0];
    pair.turn(To::B, |side, _| {
        side.finish(0, Ok(json!("ok")));
        assert!(!side.endpoint.emit(call, json!("late")));
    });
    pair.run();
    assert_eq!(pair.a.result(1), Some(&json!("ok")));
}

#[test]
fn mcp_cancellation_both_ways() {
    // Two MCP endpoints: `notifications/cancelled` with `requestId`, never `$/cancelRequest`.
    let mcp = Config { cancellation: Cancellation::Mcp, ..Config::new(Roles::PEER) };
    let mut pair = Pair::new(mcp, mcp);
    pair.run();
    let id = pair.served_later(1);
    let before = pair.a.sent.len();
    pair.turn(To::A, |side, _| assert!(side.endpoint.cancel(id)));
    assert_eq!(
        pair.a.sent[before..],
        [json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": id}})]
    );
    pair.run();
    assert_eq!(pair.b.cancelled, [pair.b.later[0]], "the handler hears of it");
    assert_eq!(pair.a.settled.get(&1), Some(&Outcome::Failed(Failure::Cancelled)));

    // An MCP endpoint does not read the LSP's notification as a cancel, nor
    // an LSP one MCP's: each is just a notification nobody handles.
    let lsp_cancel = json!({"jsonrpc": "2.0", "method": "$/cancelRequest", "params": {"id": 7}});
    let mcp_cancel = json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 7}});
    for (server, foreign, own) in
        [(mcp, lsp_cancel.clone(), mcp_cancel.clone()), (Config::new(Roles::PEER), mcp_cancel, lsp_cancel)]
    {
        let mut side = Side::new(server);
        side.end_turn();
        side.endpoint.receive(&json!({"jsonrpc": "2.0", "method": "later", "params": [], "id": 7}), Framing::Object);
        side.end_turn();
        side.endpoint.receive(&foreign, Framing::Object);
        side.end_turn();
        assert!(side.cancelled.is_empty(), "{foreign} cancels nothing");
        side.endpoint.receive(&own, Framing::Object);
        side.end_turn();
        assert_eq!(side.cancelled.len(), 1, "{own} cancels");
    }
}

#[test]
fn cancel_mid_stream_stops_the_chunks() {
    let mut pair = Pair::friends();
    let id = pair.served_later(1);
    let call = pair.b.later[0];
    pair.turn(To::B, |side, _| assert!(side.endpoint.emit(call, json!(1))));
    pair.run();
    pair.turn(To::A, |side, _| assert!(side.endpoint.cancel(id)));
    pair.turn(To::B, |side, _| assert!(side.endpoint.emit(call, json!(2))));
    pair.run();
    assert_eq!(pair.a.chunks, [(1, json!(1))], "nothing after the cancel");
    assert_eq!(pair.b.cancelled, [call]);
}

// ---- params this side sends ------------------------------------------------------------

#[test]
fn params_that_are_neither_array_nor_object_are_refused_before_anything_is_sent() {
    let mut side = Side::new(Config::new(Roles::CLIENT));
    for (waiter, params) in [(1, json!(5)), (2, json!("text")), (3, json!(null)), (4, json!(true))] {
        side.call(waiter, "echo", params, Some(60_000), 0);
    }
    side.call(5, "echo", json!({ "a": 1 }), Some(60_000), 0);
    for (params, also) in [(json!(7), json!([])), (json!(null), json!({}))] {
        let refused = side.endpoint.notify(json!("note"), Some(params)).unwrap_err();
        assert_eq!((refused.code, refused.message.as_str()), (-32602, "params must be an array or an object"));
        side.endpoint.notify(json!("note"), Some(also)).unwrap();
    }
    side.endpoint.notify(json!("note"), None).unwrap();
    let sent = side.end_turn();
    for waiter in 1..=4 {
        assert!(
            matches!(side.settled.get(&waiter), Some(Outcome::Error(e)) if e.code == -32602),
            "call {waiter}: {:?}",
            side.settled.get(&waiter)
        );
    }
    assert_eq!(side.settled.get(&5), None, "an object goes");
    assert_eq!(methods(&sent), ["echo", "note", "note", "note"], "only the structured ones went");
    assert_eq!(side.endpoint.pending(), 1);
}

// ---- serving ----------------------------------------------------------------------------

#[test]
fn serving_lasts_until_every_call_of_the_other_side_is_answered() {
    let mut pair = Pair::friends();
    assert!(!pair.b.endpoint.is_serving());
    pair.served_later(1);
    pair.served_later(2);
    assert_eq!(pair.b.later.len(), 2);
    assert!(pair.b.endpoint.is_serving(), "two calls being served");
    pair.turn(To::B, |side, _| side.finish(0, Ok(json!("one"))));
    assert!(pair.b.endpoint.is_serving(), "one left");
    pair.turn(To::B, |side, _| side.finish(0, Ok(json!("two"))));
    assert!(!pair.b.endpoint.is_serving(), "all answered");
    pair.run();
    assert_eq!(pair.a.result(2), Some(&json!("two")));
}

// ---- dialects ---------------------------------------------------------------------------

#[test]
fn jrpc_oo_params_travel_as_args_both_ways_except_to_its_system_methods() {
    let jrpc_oo = Config::new(Roles::PEER).with_dialect(Dialect::JrpcOo);
    let mut pair = Pair::new(jrpc_oo, jrpc_oo);
    pair.a.call(1, "echo", json!([1, 2]), Some(60_000), 0);
    pair.a.endpoint.request(json!("echo"), None, 2, Some(60_000), || 0);
    pair.a.call(3, "echo", json!({ "named": true }), Some(60_000), 0);
    pair.a.call(4, "system.listComponents", json!({ "Repo.add": true }), Some(60_000), 0);
    let sent = pair.a.end_turn();
    let params: Vec<&Json> = sent.iter().map(|message| &message["params"]).collect();
    assert_eq!(
        params,
        [&json!({ "args": [1, 2] }), &json!({ "args": [] }), &json!({ "named": true }), &json!({ "Repo.add": true })],
        "positional params wrapped, none as no args, named and system.* as they are"
    );
    pair.to_b.extend(sent);
    pair.run();
    // The other side's handlers got the arguments back out of `args`, and echoed them.
    assert_eq!(pair.a.result(1), Some(&json!([1, 2])));
    assert_eq!(pair.a.result(2), Some(&json!([])));
    assert_eq!(pair.a.result(3), Some(&json!({ "named": true })));
    let mut plain = Side::new(Config::new(Roles::PEER));
    plain.call(1, "echo", json!([1, 2]), Some(60_000), 0);
    assert_eq!(plain.end_turn()[0]["params"], json!([1, 2]), "without the dialect, as they are");
}

#[test]
fn jrpc_oo_sides_tell_each_other_their_methods_once_a_turn_while_connected() {
    let jrpc_oo = Config::new(Roles::PEER).with_dialect(Dialect::JrpcOo);
    let served = json!({ "echo": true, "fail": true, "later": true, "stream": true });
    let mut pair = Pair::new(jrpc_oo, jrpc_oo);
    // Four methods registered in the first turn: one announcement, naming the methods and not the notification.
    let announced: Vec<&Json> = pair.to_b.iter().collect();
    assert_eq!(announced.len(), 1, "{announced:?}");
    assert_eq!(announced[0]["method"], "system.listComponents");
    assert_eq!(announced[0]["params"], served, "params as they are: a system.* method");
    let id = announced[0]["id"].clone();
    pair.run();
    // Each side answered the other's with its own methods; the answers settle nothing.
    let answer = pair.b.sent.iter().find(|message| message["id"] == id && message.get("result").is_some());
    assert_eq!(answer.map(|message| &message["result"]), Some(&served));
    assert!(pair.a.settled.is_empty() && pair.b.settled.is_empty(), "no call of the host's settled");
    assert!(pair.a.endpoint.is_idle() && pair.b.endpoint.is_idle(), "nothing waits for those answers");
    // A method registered later is announced again; the other side's calls still get their own ids.
    pair.turn(To::A, |side, _| side.endpoint.set_method("more", Handler::Echo));
    let again: Vec<Json> = pair.to_b.iter().cloned().collect();
    assert_eq!(again.len(), 1);
    assert_eq!(again[0]["params"]["more"], json!(true));
    assert_ne!(again[0]["id"], id, "a new id each time");
    pair.run();
    pair.turn(To::A, |side, now| assert!(side.call(1, "echo", json!([5]), None, now).is_some()));
    pair.run();
    assert_eq!(pair.a.result(1), Some(&json!([5])));

    // A handler the host registers under the name answers instead.
    let mut b = Side::new(jrpc_oo);
    b.endpoint.set_method("system.listComponents", Handler::Fail);
    b.end_turn();
    b.endpoint.receive(&json!({"jsonrpc": "2.0", "method": "system.listComponents", "id": 9}), Framing::Text);
    assert_eq!(b.end_turn()[0]["error"]["code"], 7);

    // Without the dialect, the name is nobody's; a server-only side answers but never announces.
    let mut plain = Side::new(Config::new(Roles::PEER));
    assert!(plain.end_turn().is_empty(), "no announcement");
    plain.endpoint.receive(&json!({"jsonrpc": "2.0", "method": "system.listComponents", "id": 1}), Framing::Text);
    assert_eq!(plain.end_turn()[0]["error"]["code"], -32601);
    let mut server = Side::new(Config::new(Roles::SERVER).with_dialect(Dialect::JrpcOo));
    assert!(server.end_turn().is_empty(), "a side that makes no calls makes no announcement");
    server.endpoint.receive(&json!({"jsonrpc": "2.0", "method": "system.listComponents", "id": 1}), Framing::Text);
    assert_eq!(server.end_turn()[0]["result"], served);
}

#[test]
fn jrpc_oo_announcements_wait_for_an_open_connection_and_follow_each_reopening() {
    let mut side: Endpoint<Json, u32, u32> = Endpoint::new(Config::new(Roles::PEER).with_dialect(Dialect::JrpcOo));
    side.connecting();
    side.set_method("Repo.add", 1);
    let turn = |side: &mut Endpoint<Json, u32, u32>| {
        let mut sent = Vec::new();
        let mut flush = true;
        while std::mem::take(&mut flush) {
            while let Some(event) = side.poll() {
                match event {
                    Event::Transmit(transmit) => sent.push(wire::transmit(&transmit)),
                    Event::ScheduleFlush => flush = true,
                    _ => {}
                }
            }
            if flush {
                side.flush();
            }
        }
        sent
    };
    assert!(turn(&mut side).is_empty(), "a WebSocket still connecting: nothing yet");
    side.connection_opened();
    let sent = turn(&mut side);
    assert_eq!(sent.len(), 1);
    assert_eq!(sent[0]["params"], json!({ "Repo.add": true }));
    assert!(!side.connection_lost(5), "no session: the connection is closed");
    side.set_method("Repo.sub", 2);
    assert!(turn(&mut side).is_empty(), "the connection dropped: nothing");
    side.connection_opened();
    assert_eq!(turn(&mut side)[0]["params"], json!({ "Repo.add": true, "Repo.sub": true }), "told again on reopening");
}

// ---- calls a request/reply transport could not deliver --------------------------------

#[test]
fn undelivered_calls_get_the_error_their_cause_and_dialect_name_and_answered_ones_are_left_alone() {
    for (dialect, failed_code) in [(Dialect::Plain, -32094), (Dialect::Mcp, -32007)] {
        let mut side = Side::new(Config::new(Roles::CLIENT).with_dialect(dialect));
        let ids: Vec<u64> =
            (1..=5).map(|waiter| side.call(waiter, "echo", json!([]), Some(60_000), 0).unwrap()).collect();
        side.end_turn();
        side.endpoint.receive(&json!({"jsonrpc": "2.0", "result": "answered", "id": ids[0]}), Framing::Text);
        let data = json!({ "status": 500, "body": "Internal Server Error" });
        // An error reply's body: its response to a call it carried answers it; the rest is not read.
        let reply = [
            json!({"jsonrpc": "2.0", "error": {"code": 7, "message": "its own"}, "id": ids[4]}),
            json!({"jsonrpc": "2.0", "method": "echo", "params": [], "id": 1}),
            json!({"error": "not JSON-RPC"}),
        ];
        let failed = [ids[0], ids[1], ids[4]];
        side.endpoint.undelivered(
            &failed,
            &reply,
            Undelivered::Failed,
            "HTTP 500 Internal Server Error",
            Some(data.clone()),
        );
        side.endpoint.undelivered(&[ids[2], 99], &[], Undelivered::NotJson, "Parse error", None);
        side.endpoint.undelivered(&[ids[3]], &reply[..1], Undelivered::SessionExpired, "The MCP session expired", None);
        assert!(side.end_turn().is_empty(), "nothing in a reply is answered");
        side.drain();
        assert_eq!(side.result(1), Some(&json!("answered")), "an answered call keeps its answer");
        let error = |waiter| match side.settled.get(&waiter) {
            Some(Outcome::Error(error)) => (error.code, error.message.clone(), error.data.clone()),
            other => panic!("call {waiter}: {other:?}"),
        };
        assert_eq!(error(2), (failed_code, "HTTP 500 Internal Server Error".into(), Some(data)), "{dialect:?}");
        assert_eq!(error(3), (-32700, "Parse error".into(), None));
        assert_eq!(error(4), (-32093, "The MCP session expired".into(), None));
        assert_eq!(error(5), (7, "its own".into(), None), "the reply's own response to it");
        assert_eq!(side.endpoint.pending(), 0);
        assert!(side.twice.is_empty());
    }
}

// ---- connection loss and destroy ------------------------------------------------------

#[test]
fn connection_loss_fails_what_it_carried_and_keeps_notifications() {
    let mut side = Side::new(Config { batching: Batching::Always, ..Config::new(Roles::CLIENT) });
    side.call(1, "echo", json!([]), Some(60_000), 0);
    side.call(2, "echo", json!([]), Some(60_000), 0);
    side.endpoint.notify(json!("note"), None).unwrap();
    side.drain();
    side.endpoint.connection_closed();
    side.drain();
    assert_eq!(side.settled.get(&1), Some(&Outcome::Failed(Failure::ConnectionClosed)));
    assert_eq!(side.settled.get(&2), Some(&Outcome::Failed(Failure::ConnectionClosed)));
    assert_eq!(methods(&side.end_turn()), ["note"], "the queued notification goes, the failed call does not");
    assert_eq!(side.endpoint.poll_timeout(), Default::default());
}

#[test]
fn destroy_settles_everything_and_leaves_nothing() {
    let mut pair = Pair::friends();
    pair.turn(To::A, |side, now| {
        side.call(1, "later", json!([]), Some(60_000), now);
        side.call(2, "echo", json!([]), Some(500), now);
    });
    pair.deliver(To::B);
    pair.turn(To::A, |side, now| {
        side.endpoint.destroy();
        side.endpoint.destroy();
        assert_eq!(side.call(3, "echo", json!([]), None, now), None);
    });
    for waiter in 1..=3 {
        assert_eq!(pair.a.settled.get(&waiter), Some(&Outcome::Failed(Failure::Destroyed)));
    }
    pair.run();
    assert!(pair.a.twice.is_empty());
    assert!(pair.a.endpoint.is_idle());
    assert_eq!(pair.a.endpoint.poll_timeout(), Default::default(), "no timer needed");
}

// ---- random interleavings ---------------------------------------------------------------

#[derive(Clone, Debug)]
enum Op {
    Call { from_a: bool, method: u8, timeout: u64 },
    Notify { from_a: bool },
    Cancel { from_a: bool, nth: usize },
    Finish { on_a: bool, nth: usize, ok: bool },
    Deliver { to_a: bool },
    Drop { to_a: bool },
    Clock(u64),
    Close { a: bool },
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        (any::<bool>(), 0u8..5, prop_oneof![Just(50u64), Just(900), Just(1_500), Just(5_000)])
            .prop_map(|(from_a, method, timeout)| Op::Call { from_a, method, timeout }),
        any::<bool>().prop_map(|from_a| Op::Notify { from_a }),
        (any::<bool>(), 0usize..8).prop_map(|(from_a, nth)| Op::Cancel { from_a, nth }),
        (any::<bool>(), 0usize..4, any::<bool>()).prop_map(|(on_a, nth, ok)| Op::Finish { on_a, nth, ok }),
        any::<bool>().prop_map(|to_a| Op::Deliver { to_a }),
        any::<bool>().prop_map(|to_a| Op::Deliver { to_a }),
        any::<bool>().prop_map(|to_a| Op::Drop { to_a }),
        (1u64..400).prop_map(Op::Clock),
        any::<bool>().prop_map(|a| Op::Close { a }),
    ]
}

fn config(handshake: u8, batching: u8) -> Config {
    Config {
        handshake: [Handshake::Off, Handshake::Announce, Handshake::Hold][handshake as usize % 3],
        batching: [Batching::Negotiated, Batching::Always, Batching::Never][batching as usize % 3],
        ..Config::new(Roles::PEER)
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn every_call_settles_exactly_once_and_nothing_stays(
        a in (0u8..3, 0u8..3),
        b in (0u8..3, 0u8..3),
        ops in proptest::collection::vec(op(), 0..80),
    ) {
        let mut pair = Pair::new(config(a.0, a.1), config(b.0, b.1));
        let mut made: [Vec<(u32, u64)>; 2] = [Vec::new(), Vec::new()];
        let mut next_waiter = 0u32;
        for op in ops {
            match op {
                Op::Call { from_a, method, timeout } => {
                    next_waiter += 1;
                    let waiter = next_waiter;
                    let name = ["echo", "fail", "later", "stream", "missing"][method as usize];
                    let mut id = None;
                    pair.turn(if from_a { To::A } else { To::B }, |side, now| {
                        id = side.call(waiter, name, json!([1, 2]), Some(timeout), now);
                    });
                    made[usize::from(!from_a)].push((waiter, id.unwrap()));
                }
                Op::Notify { from_a } => pair.turn(if from_a { To::A } else { To::B }, |side, _| {
                    side.endpoint.notify(json!("note"), Some(json!([1]))).unwrap();
                }),
                Op::Cancel { from_a, nth } => {
                    let calls = &made[usize::from(!from_a)];
                    if let Some(&(_, id)) = calls.get(nth % calls.len().max(1)) {
                        pair.turn(if from_a { To::A } else { To::B }, |side, _| {
                            side.endpoint.cancel(id);
                        });
                    }
                }
                Op::Finish { on_a, nth, ok } => pair.turn(if on_a { To::A } else { To::B }, |side, _| {
                    if !side.later.is_empty() {
                        let outcome = if ok { Ok(json!("later")) } else { Err(ErrorObject::new(9, "no")) };
                        side.finish(nth % side.later.len(), outcome);
                    }
                }),
                Op::Deliver { to_a } => {
                    pair.deliver(if to_a { To::A } else { To::B });
                }
                Op::Drop { to_a } => {
                    if to_a { pair.to_a.pop_front() } else { pair.to_b.pop_front() };
                }
                Op::Clock(ms) => pair.advance(ms),
                Op::Close { a } => pair.turn(if a { To::A } else { To::B }, |side, _| {
                    side.endpoint.connection_closed();
                }),
            }
        }
        // Quiesce: every handler answers, everything in transit arrives, and
        // the clock passes every deadline (a ticked call needs two readings).
        for _ in 0..3 {
            for to in [To::A, To::B] {
                pair.turn(to, |side, _| {
                    while !side.later.is_empty() {
                        side.finish(0, Ok(json!("end")));
                    }
                });
            }
            pair.run();
            pair.advance(TICK_MS);
            pair.advance(6_000);
            pair.run();
        }
        for (side, calls) in [(&pair.a, &made[0]), (&pair.b, &made[1])] {
            prop_assert!(side.twice.is_empty(), "settled twice: {:?}", side.twice);
            for (waiter, _) in calls {
                prop_assert!(side.settled.contains_key(waiter), "call {} never settled", waiter);
            }
            prop_assert!(side.endpoint.is_idle(), "something stayed behind");
            prop_assert_eq!(side.endpoint.pending(), 0);
        }
    }
}

// ---- a method's contract: params and result checked by schemas --------------------

#[test]
fn params_that_fail_their_schema_get_invalid_params_with_the_issues() {
    let mut pair = Pair::friends();
    pair.served_later(1);
    let issues = json!([{"message": "Expected number", "path": [0]}]);
    pair.turn(To::B, |side, _| {
        let call = side.later.remove(0);
        side.endpoint.reject_params(call, issues.clone());
    });
    pair.run();
    match pair.a.settled.get(&1) {
        Some(Outcome::Error(error)) => {
            assert_eq!((error.code, error.message.as_str()), (-32602, "Invalid params"));
            assert_eq!(error.data, Some(issues));
        }
        other => panic!("expected -32602, got {other:?}"),
    }
    assert!(pair.a.endpoint.is_idle() && pair.b.endpoint.is_idle());
}

#[test]
fn a_result_that_fails_its_schema_is_an_internal_error_without_the_result() {
    let mut pair = Pair::friends();
    pair.served_later(1);
    pair.turn(To::B, |side, _| {
        let call = side.later.remove(0);
        side.endpoint.reject_result(call);
    });
    pair.run();
    match pair.a.settled.get(&1) {
        Some(Outcome::Error(error)) => {
            assert_eq!(error.code, -32603);
            assert_eq!(error.data, None, "neither the result nor the findings leave the server");
        }
        other => panic!("expected -32603, got {other:?}"),
    }
}

#[test]
fn an_asynchronous_check_that_never_settles_is_given_up_at_its_deadline() {
    let mut pair = Pair::friends();
    pair.served_later(1);
    let call = pair.b.later[0];
    let deadline = pair.now + 500;
    pair.turn(To::B, |side, _| side.endpoint.checking(call, deadline));
    assert_eq!(pair.b.endpoint.poll_timeout().deadline, Some(deadline), "the host arms a timer for it");
    assert!(!pair.b.endpoint.is_idle(), "a check under way is held");
    pair.advance(499);
    pair.run();
    assert!(pair.a.settled.is_empty() && pair.b.check_expired.is_empty(), "not before its deadline");
    pair.advance(1);
    pair.run();
    assert_eq!(pair.b.check_expired, [call], "the host is told to stop the check");
    match pair.a.settled.get(&1) {
        Some(Outcome::Error(error)) => assert_eq!(error.code, -32603),
        other => panic!("expected -32603, got {other:?}"),
    }
    // The check settling late answers nothing more.
    let before = pair.b.sent.len();
    pair.turn(To::B, |side, _| side.endpoint.reject_params(call, json!([])));
    assert_eq!(pair.b.sent.len(), before, "one answer per call");
    assert!(pair.a.endpoint.is_idle() && pair.b.endpoint.is_idle());
    assert!(pair.a.twice.is_empty());
}

#[test]
fn a_check_that_finishes_in_time_leaves_no_deadline_behind() {
    let mut pair = Pair::friends();
    pair.served_later(1);
    let call = pair.b.later[0];
    let deadline = pair.now + 500;
    pair.turn(To::B, |side, _| {
        side.endpoint.checking(call, deadline);
        side.endpoint.checked(call);
    });
    pair.advance(1_000);
    assert!(pair.b.check_expired.is_empty());
    pair.turn(To::B, |side, _| side.finish(0, Ok(json!("late but fine"))));
    pair.run();
    assert_eq!(pair.a.result(1), Some(&json!("late but fine")));
    assert!(pair.a.endpoint.is_idle() && pair.b.endpoint.is_idle());
}

// ---- what the transport refused to send -----------------------------------------

#[test]
fn an_answer_the_transport_refuses_goes_as_an_error_without_its_payload() {
    let mut pair = Pair::friends();
    pair.b.refuses = Some("uncloneable");
    pair.turn(To::A, |side, now| {
        side.call(1, "echo", json!(["uncloneable"]), None, now);
    });
    pair.run();
    match pair.a.settled.get(&1) {
        Some(Outcome::Error(error)) => {
            assert_eq!((error.code, error.message.as_str()), (-32603, "Result could not be sent: DataCloneError"));
            assert_eq!(error.data, None);
        }
        other => panic!("{other:?}"),
    }
    // An error whose data cannot go loses its data, keeps its code.
    pair.served_later(2);
    pair.b.finish(0, Err(ErrorObject::new(-32001, "Build failed").with_data(json!("uncloneable"))));
    pair.to_a.extend(pair.b.end_turn());
    pair.run();
    match pair.a.settled.get(&2) {
        Some(Outcome::Error(error)) => assert_eq!((error.code, error.data.clone()), (-32001, None)),
        other => panic!("{other:?}"),
    }
    assert!(pair.a.endpoint.is_idle() && pair.b.endpoint.is_idle());
}

/// In one turn of A's: a `later` call (it goes alone), then three `echo`
/// calls (waiters 1 to 3) whose second carries "uncloneable", and `also`:
/// between friends, the three go as one batch and are answered as one.
fn burst_with_a_culprit(pair: &mut Pair, also: impl FnOnce(&mut Side)) {
    pair.turn(To::A, |side, now| {
        side.call(0, "later", json!([]), None, now);
        for (waiter, text) in [(1, "fine"), (2, "uncloneable"), (3, "also fine")] {
            side.call(waiter, "echo", json!([text]), None, now);
        }
        also(side);
    });
}

#[test]
fn a_refused_batch_of_answers_mends_only_the_culprit() {
    let mut pair = Pair::friends();
    pair.b.refuses = Some("uncloneable");
    burst_with_a_culprit(&mut pair, |_| {});
    pair.run();
    let batches: Vec<usize> = pair.b.sent.iter().filter_map(|m| m.as_array().map(Vec::len)).collect();
    assert_eq!(batches, [3], "the mended batch went as one array");
    assert_eq!(pair.a.result(1), Some(&json!(["fine"])));
    assert_eq!(pair.a.result(3), Some(&json!(["also fine"])));
    assert!(matches!(pair.a.settled.get(&2), Some(Outcome::Error(e)) if e.code == -32603), "{:?}", pair.a.settled);
}

#[test]
fn a_refused_batch_of_calls_goes_again_one_by_one_and_only_the_culprit_fails() {
    let mut pair = Pair::friends();
    pair.a.refuses = Some("uncloneable");
    burst_with_a_culprit(&mut pair, |side| side.endpoint.notify(json!("note"), Some(json!(["uncloneable"]))).unwrap());
    let unsent: Vec<u32> = pair.a.unsent.iter().map(|&(_, waiter)| waiter).collect();
    assert_eq!(unsent, [2], "the culprit's call is given back, and only it");
    pair.run();
    assert_eq!(pair.a.result(1), Some(&json!(["fine"])));
    assert_eq!(pair.a.result(3), Some(&json!(["also fine"])));
    assert!(pair.b.notified.is_empty(), "an unsendable notification is dropped");
    assert_eq!(pair.b.later.len(), 1, "the first call went alone, and was served");
}

#[test]
fn an_answer_the_channel_refuses_whatever_it_holds_is_dropped_not_retried_for_ever() {
    let mut pair = Pair::friends();
    // A closed channel: it refuses everything, the mended error included.
    pair.b.refuses = Some("jsonrpc");
    // A lone answer, then a batch of answers none of which a check blames.
    pair.turn(To::A, |side, now| {
        side.call(9, "echo", json!([1]), None, now);
    });
    pair.run();
    burst_with_a_culprit(&mut pair, |_| {});
    pair.run();
    pair.turn(To::B, |side, _| side.finish(0, Ok(json!("late"))));
    pair.run();
    assert!(pair.a.settled.is_empty(), "nothing reached the caller (its timeout will answer)");
    assert!(pair.b.sent.iter().all(|m| m["method"] == json!("$/ready")), "nothing left B but its hello");
    assert!(pair.b.endpoint.is_idle());
}

// ---- dialects ------------------------------------------------------------------

#[test]
fn the_mcp_dialect_never_batches_and_cancels_its_own_way() {
    let friend = Config { handshake: Handshake::Announce, ..Config::new(Roles::PEER) };
    let mcp = Config { handshake: Handshake::Announce, batching: Batching::Always, ..Config::new(Roles::PEER) }
        .with_dialect(wiggum_rpc::core::Dialect::Mcp);
    let mut pair = Pair::new(mcp, friend);
    pair.run();
    let before = pair.a.sent.len();
    let mut id = 0;
    pair.turn(To::A, |side, now| {
        id = side.call(1, "later", json!([]), None, now).unwrap();
        side.call(2, "later", json!([]), None, now);
        side.call(3, "later", json!([]), None, now);
    });
    assert_eq!(methods(&pair.a.sent[before..]), ["later", "later", "later"], "never a batch, even asked for one");
    pair.run();
    pair.turn(To::A, |side, _| {
        side.endpoint.cancel(id);
    });
    let cancel = pair.a.sent.last().unwrap();
    assert_eq!(cancel["method"], json!("notifications/cancelled"));
    assert_eq!(cancel["params"]["requestId"], json!(id));
}

#[test]
fn the_endpoint_says_which_of_its_calls_a_message_answers() {
    use wiggum_rpc::core::Envelope;
    let mut pair = Pair::friends();
    let id = pair.served_later(1);
    let answers = |side: &Side, message: Json| side.endpoint.answers(Envelope::read(&message), Framing::Object);
    assert_eq!(answers(&pair.a, json!({"jsonrpc": "2.0", "result": 1, "id": id})), Some(id));
    assert_eq!(
        answers(&pair.a, json!({"jsonrpc": "2.0", "error": "malformed", "id": id})),
        Some(id),
        "a bad answer too"
    );
    assert_eq!(answers(&pair.a, json!({"jsonrpc": "2.0", "result": 1, "id": id.to_string()})), None, "\"1\" is not 1");
    assert_eq!(
        answers(&pair.a, json!({"jsonrpc": "2.0", "method": "echo", "id": id})),
        None,
        "a request answers nothing"
    );
    assert_eq!(answers(&pair.a, json!({"result": 1, "id": id})), None, "not JSON-RPC on a shared channel");
    let server = Side::new(Config::new(Roles::SERVER));
    assert_eq!(answers(&server, json!({"jsonrpc": "2.0", "result": 1, "id": id})), None, "a server has no calls");
}

// ---- presence: the other side's end, noticed -------------------------------

/// A hello that names this side's presence, and what the other side's host is asked to watch.
#[test]
fn a_hello_names_its_presence_and_the_other_side_watches_it_once() {
    let config = Config { handshake: Handshake::Announce, ..Config::new(Roles::PEER) };
    let mut pair = Pair { a: Side::with_presence(config, Some("wiggum-rpc:a")), ..Pair::new(config, config) };
    pair.to_b.clear();
    pair.to_a.clear();
    pair.to_b.extend(pair.a.end_turn());
    let hello = pair.to_b.front().cloned().expect("a says hello");
    assert_eq!(hello["method"], "$/ready");
    assert_eq!(hello["params"]["presence"], "wiggum-rpc:a");
    pair.run();
    assert_eq!(pair.b.watching, vec!["wiggum-rpc:a".to_string()]);
    // b named none: nothing for a to watch, and no member in b's hello.
    assert!(pair.a.watching.is_empty());
    assert!(pair.b.sent.iter().all(|sent| sent["params"].get("presence").is_none()));

    // The same name again is the same instance; a new one is a new instance (a reloaded frame).
    let ready = |presence: &str| json!({ "jsonrpc": "2.0", "method": "$/ready", "params": { "ack": true, "presence": presence } });
    pair.b.endpoint.receive(&ready("wiggum-rpc:a"), Framing::Object);
    pair.b.drain();
    assert_eq!(pair.b.watching.len(), 1);
    pair.b.endpoint.receive(&ready("wiggum-rpc:a2"), Framing::Object);
    pair.b.drain();
    assert_eq!(pair.b.watching, vec!["wiggum-rpc:a".to_string(), "wiggum-rpc:a2".to_string()]);
}

/// When the watched side has gone, the host says so, and the calls waiting on it fail at once.
#[test]
fn the_other_sides_end_fails_the_calls_waiting_on_it() {
    let config = Config { handshake: Handshake::Announce, ..Config::new(Roles::PEER) };
    let mut pair = Pair::new(config, config);
    pair.run();
    let now = pair.now;
    let id = pair.b.call(7, "later", json!([]), Some(60_000), now).expect("sent");
    pair.run();
    assert!(pair.b.settled.is_empty(), "a holds the call");
    // a's host ended (a worker terminated, a frame removed): b's host saw its presence go.
    pair.b.endpoint.connection_closed();
    pair.b.drain();
    assert_eq!(pair.b.settled.get(&7), Some(&Outcome::Failed(Failure::ConnectionClosed)), "call {id}");
}

/// A presence that is not a short, non-empty string names nothing.
#[test]
fn a_hostile_presence_names_nothing() {
    let config = Config { handshake: Handshake::Announce, ..Config::new(Roles::PEER) };
    let mut side = Side::new(config);
    side.drain();
    let long = "x".repeat(201);
    for presence in [json!(7), json!(""), json!(long), json!(null), json!({ "name": "x" })] {
        side.endpoint.receive(
            &json!({ "jsonrpc": "2.0", "method": "$/ready", "params": { "ack": true, "presence": presence } }),
            Framing::Object,
        );
        side.drain();
    }
    assert!(side.watching.is_empty());
    let fits = "y".repeat(200);
    side.endpoint.receive(
        &json!({ "jsonrpc": "2.0", "method": "$/ready", "params": { "ack": true, "presence": fits } }),
        Framing::Object,
    );
    side.drain();
    assert_eq!(side.watching, vec!["y".repeat(200)]);
}

// ---- stream credit: a slow caller slows its handler --------------------------

/// A's call to B's `later`, with a window of `window` chunks opened in the same turn.
fn windowed_call(pair: &mut Pair, window: u32) -> (u64, CallId) {
    let mut id = 0;
    pair.turn(To::A, |side, now| {
        let options = CallOptions { window: Some(window), ..CallOptions::default() };
        id = side.endpoint.request_with(json!("later"), Some(json!([])), 1, options, || now).unwrap();
    });
    pair.run();
    (id, *pair.b.later.last().expect("b serves it"))
}

#[test]
fn a_window_bounds_what_the_handler_may_send_until_the_caller_takes_chunks() {
    let mut pair = Pair::friends();
    assert!(pair.a.peer.is_some_and(|peer| peer.stream_credit), "friends offer stream credit");
    let (id, call) = windowed_call(&mut pair, 4);
    // The request and its credit crossed as one batch: the handler knew its bound before it ran.
    let batch = pair.a.sent.iter().find_map(|m| m.as_array().cloned()).expect("one batch");
    assert_eq!(batch.len(), 2);
    assert_eq!(batch[0]["method"], "later");
    assert_eq!(batch[1], json!({ "jsonrpc": "2.0", "method": "stream.credit", "params": { "id": id, "credit": 4 } }));
    // B's handler sends four chunks: the last one uses up the window.
    let mut may = Vec::new();
    for n in 0..4 {
        pair.b.endpoint.emit(call, json!(n));
        may.push(pair.b.endpoint.may_stream(call));
    }
    assert_eq!(may, [true, true, true, false]);
    pair.b.end_turn().into_iter().for_each(|m| pair.to_a.push_back(m));
    pair.run();
    assert_eq!(pair.a.chunks.len(), 4);

    // A takes one: not yet half a window, nothing goes back.
    pair.turn(To::A, |side, _| side.endpoint.consumed(id, 1));
    pair.run();
    assert!(pair.b.may_stream.is_empty());
    assert!(!pair.b.endpoint.may_stream(call));
    // A takes a second: two more chunks may come, and B's handler hears it.
    pair.turn(To::A, |side, _| side.endpoint.consumed(id, 1));
    pair.run();
    assert_eq!(pair.b.may_stream, vec![call]);
    assert!(pair.b.endpoint.may_stream(call));
    pair.b.endpoint.emit(call, json!(4));
    pair.b.endpoint.emit(call, json!(5));
    assert!(!pair.b.endpoint.may_stream(call));

    pair.turn(To::B, |side, _| side.finish(0, Ok(json!("done"))));
    pair.run();
    assert_eq!(pair.a.result(1), Some(&json!("done")));
    assert_eq!(pair.a.chunks.len(), 6);
    // Once answered, nothing more may be sent, and taking chunks sends nothing.
    assert!(!pair.b.endpoint.may_stream(call));
    let before = pair.a.sent.len();
    pair.turn(To::A, |side, _| side.endpoint.consumed(id, 6));
    assert_eq!(pair.a.sent.len(), before);
}

#[test]
fn without_the_other_sides_offer_a_window_is_not_opened_and_the_call_streams_freely() {
    // No handshake: neither side knows the other offers credit.
    let config = Config { handshake: Handshake::Off, ..Config::new(Roles::PEER) };
    let mut pair = Pair::new(config, config);
    pair.run();
    let (_, call) = windowed_call(&mut pair, 2);
    assert!(pair.a.sent.iter().all(|m| m["method"] != "stream.credit"), "a stranger gets no stream.credit");
    for n in 0..100 {
        pair.b.endpoint.emit(call, json!(n));
        assert!(pair.b.endpoint.may_stream(call));
    }
}

#[test]
fn credit_that_is_not_a_positive_whole_number_is_ignored() {
    let config = Config { handshake: Handshake::Off, ..Config::new(Roles::PEER) };
    let mut side = Side::new(config);
    side.endpoint.receive(&json!({ "jsonrpc": "2.0", "id": 9, "method": "later" }), Framing::Object);
    side.drain();
    let call = side.later[0];
    let credit =
        |credit: Json| json!({ "jsonrpc": "2.0", "method": "stream.credit", "params": { "id": 9, "credit": credit } });
    for bad in [json!(0), json!(-1), json!(1.5), json!("2"), json!(null)] {
        side.endpoint.receive(&credit(bad), Framing::Object);
        side.drain();
    }
    side.endpoint.receive(
        &json!({ "jsonrpc": "2.0", "method": "stream.credit", "params": { "id": 10, "credit": 1 } }),
        Framing::Object,
    );
    side.drain();
    assert!(side.endpoint.may_stream(call), "no bound was set");
    side.endpoint.receive(&credit(json!(1)), Framing::Object);
    side.drain();
    side.endpoint.emit(call, json!("one"));
    assert!(!side.endpoint.may_stream(call), "one chunk, then wait");
    // A huge grant is clamped, not wrapped.
    side.endpoint.receive(&credit(json!(1e300)), Framing::Object);
    side.drain();
    assert!(side.endpoint.may_stream(call));
    assert_eq!(side.may_stream, vec![call]);
}

// ---- progress ----------------------------------------------------------------------

/// A's call `waiter` to B's `later` with `options`, delivered and running.
fn progress_call(pair: &mut Pair, waiter: u32, options: CallOptions) {
    pair.turn(To::A, |side, now| {
        side.endpoint.request_with(json!("later"), Some(json!([])), waiter, options, || now).unwrap();
    });
    pair.run();
}

/// B's running handler number `index` reports `value`.
fn report(pair: &mut Pair, index: usize, value: Json) -> bool {
    let mut went = false;
    pair.turn(To::B, |side, _| went = side.endpoint.progress(side.later[index], value));
    pair.run();
    went
}

#[test]
fn progress_reaches_its_call_in_order_and_keeps_it_alive() {
    let mut pair = Pair::friends();
    let options = CallOptions { timeout_ms: Some(5_000), reset_on_progress: true, ..CallOptions::default() };
    progress_call(&mut pair, 1, options);
    progress_call(&mut pair, 2, options);
    // Four timeouts' worth of work, a progress of call 1 every 4 s; call 2 says nothing.
    pair.advance(1);
    for step in 0..5 {
        assert!(report(&mut pair, 0, json!(step)));
        pair.advance(4_000);
    }
    assert_eq!(pair.a.settled.get(&2), Some(&Outcome::Failed(Failure::Timeout { sent: true })));
    assert!(!pair.a.settled.contains_key(&1), "kept alive by its progress");
    let seen: Vec<(u32, Json)> = pair.a.progress.clone();
    assert_eq!(seen, (0..5).map(|step| (1, json!(step))).collect::<Vec<_>>(), "its own, in order");
    pair.turn(To::B, |side, _| side.finish(0, Ok(json!("built"))));
    pair.run();
    assert_eq!(pair.a.result(1), Some(&json!("built")));
    // Progress after the answer, or for a call never made, is nobody's.
    assert!(!report_after_answer(&mut pair));
    pair.b
        .endpoint
        .receive(&json!({"jsonrpc": "2.0", "method": "$/progress", "params": {"id": 99, "value": 1}}), Framing::Object);
    pair.to_a.push_back(json!({"jsonrpc": "2.0", "method": "$/progress", "params": {"id": 99, "value": 1}}));
    pair.run();
    assert_eq!(pair.a.progress.len(), 5);
    assert!(pair.a.twice.is_empty());
}

/// A progress that arrives after its call's answer: B's handler is done, so it cannot report.
fn report_after_answer(pair: &mut Pair) -> bool {
    let id = pair.a.sent.iter().rev().find_map(|m| m.get("id").cloned()).unwrap();
    pair.to_a.push_back(json!({"jsonrpc": "2.0", "method": "$/progress", "params": {"id": id, "value": "late"}}));
    pair.run();
    pair.a.progress.iter().any(|(_, value)| *value == json!("late"))
}

#[test]
fn the_total_cap_ends_a_call_whatever_its_progress() {
    let mut pair = Pair::friends();
    // The host reads the clock every tick while a deadline waits for a reading.
    let ticks = |pair: &mut Pair, ms: u64| (0..ms / TICK_MS).for_each(|_| pair.advance(TICK_MS));
    let options = CallOptions {
        timeout_ms: Some(2_000),
        reset_on_progress: true,
        max_total_ms: Some(7_000),
        ..CallOptions::default()
    };
    progress_call(&mut pair, 1, options);
    for _ in 0..6 {
        ticks(&mut pair, 1_000);
        report(&mut pair, 0, json!("working"));
    }
    assert!(pair.a.settled.is_empty(), "6 s in, alive by its progress");
    ticks(&mut pair, 1_200);
    assert_eq!(pair.a.settled.get(&1), Some(&Outcome::Failed(Failure::Timeout { sent: true })), "past 7 s: over");
    // A cap smaller than the timeout wins.
    let options = CallOptions {
        timeout_ms: Some(10_000),
        reset_on_progress: true,
        max_total_ms: Some(500),
        ..CallOptions::default()
    };
    progress_call(&mut pair, 2, options);
    pair.advance(501);
    assert_eq!(pair.a.settled.get(&2), Some(&Outcome::Failed(Failure::Timeout { sent: true })));
}

#[test]
fn without_reset_progress_is_only_news() {
    let mut pair = Pair::friends();
    let options = CallOptions { timeout_ms: Some(500), reset_on_progress: false, ..CallOptions::default() };
    progress_call(&mut pair, 1, options);
    pair.advance(300);
    report(&mut pair, 0, json!(1));
    pair.advance(300);
    assert_eq!(pair.a.settled.get(&1), Some(&Outcome::Failed(Failure::Timeout { sent: true })));
    assert_eq!(pair.a.progress, vec![(1, json!(1))]);
}

#[test]
fn a_flood_of_progress_is_delivered_whole_and_the_last_is_seen() {
    let mut pair = Pair::friends();
    progress_call(
        &mut pair,
        1,
        CallOptions { timeout_ms: Some(1_000), reset_on_progress: true, ..CallOptions::default() },
    );
    pair.turn(To::B, |side, _| {
        for n in 0..10_000 {
            side.endpoint.progress(side.later[0], json!(n));
        }
    });
    pair.run();
    assert_eq!(pair.a.progress.len(), 10_000);
    assert_eq!(pair.a.progress.last(), Some(&(1, json!(9_999))));
}

#[test]
fn toward_a_stranger_no_progress_goes() {
    // B never said hello: A's handler has nobody to report to.
    let mut pair = Pair::new(Config::new(Roles::PEER), Config::new(Roles::PEER));
    pair.turn(To::B, |side, now| {
        side.call(1, "later", json!([]), None, now);
    });
    pair.run();
    let mut went = true;
    pair.turn(To::A, |side, _| went = side.endpoint.progress(side.later[0], json!(1)));
    assert!(!went);
    assert!(pair.to_b.is_empty());
}

#[test]
fn an_answered_mcp_call_takes_its_token_and_leaves_the_others() {
    let mcp = Config::new(Roles::PEER).with_dialect(Dialect::Mcp);
    let mut pair = Pair::new(mcp, mcp);
    let options = CallOptions { progress: true, ..CallOptions::default() };
    pair.turn(To::A, |side, now| {
        for waiter in 1..=3 {
            side.endpoint.request_with(json!("later"), Some(json!({})), waiter, options, || now).unwrap();
        }
    });
    pair.run();
    let finished = pair.b.later[0];
    pair.turn(To::B, |side, _| side.finish(0, Ok(json!("done"))));
    pair.run();
    let mut went = true;
    pair.turn(To::B, |side, _| went = side.endpoint.progress(finished, json!(1)));
    assert!(!went, "an answered call reports no progress");
    assert!(report(&mut pair, 1, json!(3)));
    assert!(report(&mut pair, 0, json!(2)));
    let tokens: Vec<(u32, Json)> = pair.a.progress.clone();
    assert_eq!(
        tokens,
        [(3, json!({"progressToken": 3, "progress": 3})), (2, json!({"progressToken": 2, "progress": 2}))]
    );
}

#[test]
fn mcp_progress_travels_by_token() {
    let mcp = Config::new(Roles::PEER).with_dialect(Dialect::Mcp);
    let mut pair = Pair::new(mcp, mcp);
    let options =
        CallOptions { timeout_ms: Some(1_000), progress: true, reset_on_progress: true, ..CallOptions::default() };
    pair.turn(To::A, |side, now| {
        let params = json!({"name": "build", "_meta": {"trace": "t1"}});
        side.endpoint.request_with(json!("later"), Some(params), 1, options, || now).unwrap();
    });
    let request = pair.to_b.front().cloned().unwrap();
    assert_eq!(request["params"]["_meta"], json!({"trace": "t1", "progressToken": request["id"]}));
    pair.run();
    assert!(report(&mut pair, 0, json!({"progress": 3, "total": 10, "message": "compiling"})));
    let sent = pair.b.sent.last().unwrap().clone();
    assert_eq!(sent["method"], json!("notifications/progress"));
    assert_eq!(
        sent["params"],
        json!({"progressToken": request["id"], "progress": 3, "total": 10, "message": "compiling"})
    );
    assert_eq!(pair.a.progress.len(), 1);
    // MCP progress of a token that is not one of this side's calls (an application's own
    // token) goes to the application's notification handler, as any notification.
    pair.a.endpoint.set_notification("notifications/progress", Handler::Echo);
    let foreign = json!({"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": "mine", "progress": 1}});
    pair.to_a.push_back(foreign);
    pair.run();
    assert_eq!(pair.a.notified.last(), Some(&json!({"progressToken": "mine", "progress": 1})));
    assert_eq!(pair.a.progress.len(), 1);
    // A request without a token gets none.
    pair.turn(To::A, |side, now| {
        side.endpoint.request_with(json!("later"), Some(json!({})), 2, CallOptions::default(), || now).unwrap();
    });
    pair.run();
    assert!(!report(&mut pair, 1, json!(1)));
}
