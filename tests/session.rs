//! Native tests of resumable sessions: a client endpoint and a server that
//! holds sessions (as the hub does), over connections that drop at every
//! point of a call, on a fake clock. Every call settles exactly once, no
//! handler runs twice, and what cannot be recovered fails with the
//! connection.
#![cfg(not(target_arch = "wasm32"))]

use std::collections::{BTreeMap, VecDeque};

use proptest::prelude::*;
use serde_json::{json, Value as Json};
use wiggum_rpc::core::{
    json as wire, presented_session, CallId, Config, Endpoint, Event, Failure, Framing, HandOffRefused, Handshake,
    Outcome, Roles, SessionSetup, ACK_EVERY,
};

const GRACE: u64 = 60_000;

#[derive(Clone, Debug, PartialEq)]
enum Handler {
    /// Answers its params at once.
    Echo,
    /// Answers when the test says so.
    Later,
    /// Sends its params' elements as chunks, then answers `"done"`.
    Stream,
    /// A notification: counted.
    Note,
}

struct Side {
    endpoint: Endpoint<Json, Handler, u32>,
    settled: BTreeMap<u32, Outcome<Json>>,
    twice: Vec<u32>,
    /// Params of every handler run, in order (a handler that runs twice shows here).
    ran: Vec<Json>,
    later: Vec<CallId>,
    notes: Vec<Json>,
    chunks: Vec<(u32, Json)>,
    ended: usize,
    flush_due: bool,
}

impl Side {
    fn new(endpoint: Endpoint<Json, Handler, u32>) -> Side {
        let mut side = Side {
            endpoint,
            settled: BTreeMap::new(),
            twice: Vec::new(),
            ran: Vec::new(),
            later: Vec::new(),
            notes: Vec::new(),
            chunks: Vec::new(),
            ended: 0,
            flush_due: false,
        };
        side.endpoint.set_method("echo", Handler::Echo);
        side.endpoint.set_method("later", Handler::Later);
        side.endpoint.set_method("stream", Handler::Stream);
        side.endpoint.set_notification("note", Handler::Note);
        side
    }

    fn client(max_kept: usize) -> Side {
        let config = Config { handshake: Handshake::Announce, ..Config::new(Roles::PEER) };
        Side::new(Endpoint::with_session(config, None, Some(SessionSetup::Client { max_kept })))
    }

    fn server(id: &str, max_kept: usize) -> Side {
        let setup = SessionSetup::Server { id: id.into(), grace_ms: GRACE, max_kept };
        Side::new(Endpoint::with_session(Config::new(Roles::PEER), None, Some(setup)))
    }

    /// The host's side of every event, then the turn's flush; what went out.
    fn run(&mut self) -> Vec<Json> {
        let mut out = Vec::new();
        loop {
            while let Some(event) = self.endpoint.poll() {
                match event {
                    Event::Transmit(transmit) => out.push(wire::transmit(&transmit)),
                    Event::Invoke { call, handler, params, .. } => {
                        self.ran.push(params.clone().unwrap_or(Json::Null));
                        match handler {
                            Handler::Echo | Handler::Note => {
                                self.endpoint.complete(call, Ok(params.unwrap_or(Json::Null)))
                            }
                            Handler::Later => self.later.push(call),
                            Handler::Stream => {
                                for chunk in params.and_then(|p| p.as_array().cloned()).unwrap_or_default() {
                                    self.endpoint.emit(call, chunk);
                                }
                                self.endpoint.complete(call, Ok(json!("done")));
                            }
                        }
                    }
                    Event::Notify { params, .. } => self.notes.push(params.unwrap_or(Json::Null)),
                    Event::Settled { waiter, outcome, .. } => {
                        let before = self.settled.insert(waiter, outcome);
                        self.twice.extend(before.map(|_| waiter));
                    }
                    Event::Chunk { waiter, chunk, .. } => self.chunks.push((waiter, chunk.unwrap_or(Json::Null))),
                    Event::SessionEnded => self.ended += 1,
                    Event::ScheduleFlush => self.flush_due = true,
                    _ => {}
                }
            }
            if !std::mem::take(&mut self.flush_due) {
                return out;
            }
            self.endpoint.flush();
        }
    }

    fn call(&mut self, waiter: u32, method: &str, params: Json) {
        self.endpoint.request(json!(method), Some(params), waiter, None, || 0);
    }

    fn outcome(&self, waiter: u32) -> Option<&Outcome<Json>> {
        self.settled.get(&waiter)
    }
}

/// One client, a server that keeps sessions by id (as the hub does: a new
/// connection whose first message presents a session it holds goes to that
/// session's endpoint; any other gets a fresh one), and one connection at a
/// time between them.
struct World {
    client: Side,
    sessions: BTreeMap<String, Side>,
    /// The session endpoint the connection reaches, once known.
    serving: Option<String>,
    /// The connection is up.
    up: bool,
    to_server: VecDeque<Json>,
    to_client: VecDeque<Json>,
    next: u32,
    now: u64,
    max_kept: usize,
}

impl World {
    fn new() -> World {
        World::with_bound(1_000)
    }

    fn with_bound(max_kept: usize) -> World {
        let mut world = World {
            client: Side::client(max_kept),
            sessions: BTreeMap::new(),
            serving: None,
            up: true,
            to_server: VecDeque::new(),
            to_client: VecDeque::new(),
            next: 0,
            now: 1,
            max_kept,
        };
        let hello = world.client.run();
        world.to_server.extend(hello);
        world
    }

    fn server(&mut self) -> &mut Side {
        let id = self.serving.clone().expect("a session endpoint serves the connection");
        self.sessions.get_mut(&id).unwrap()
    }

    /// The one session the server holds.
    fn only_session(&mut self) -> &mut Side {
        assert_eq!(self.sessions.len(), 1);
        self.sessions.values_mut().next().unwrap()
    }

    /// Delivers one message to the server; false when none waits.
    fn step_server(&mut self) -> bool {
        let Some(message) = self.to_server.pop_front() else { return false };
        if self.serving.is_none() {
            // The connection's first message picks its endpoint.
            let id = match presented_session(&message) {
                Some(id) if self.sessions.contains_key(&id) => id,
                _ => {
                    self.next += 1;
                    let id = format!("secret-{}", self.next);
                    self.sessions.insert(id.clone(), Side::server(&id, self.max_kept));
                    id
                }
            };
            self.serving = Some(id);
        }
        let server = self.server();
        server.endpoint.receive(&message, Framing::Text);
        let out = server.run();
        self.to_client.extend(out);
        true
    }

    fn step_client(&mut self) -> bool {
        let Some(message) = self.to_client.pop_front() else { return false };
        self.client.endpoint.receive(&message, Framing::Text);
        let out = self.client.run();
        self.to_server.extend(out);
        true
    }

    /// Delivers everything both ways until the connection is quiet.
    fn settle(&mut self) {
        while self.step_server() | self.step_client() {}
    }

    /// The client does something in a turn of its own.
    fn client_turn(&mut self, turn: impl FnOnce(&mut Side)) {
        turn(&mut self.client);
        let out = self.client.run();
        assert!(self.up || out.is_empty(), "nothing goes out while disconnected: {out:?}");
        self.to_server.extend(out);
    }

    fn server_turn(&mut self, id: &str, turn: impl FnOnce(&mut Side)) {
        let server = self.sessions.get_mut(id).unwrap();
        turn(server);
        let out = server.run();
        if self.serving.as_deref() == Some(id) && self.up {
            self.to_client.extend(out);
        } else {
            assert!(out.is_empty(), "a detached session sends nothing: {out:?}");
        }
    }

    /// The connection drops: what is on the wire is lost.
    fn drop_connection(&mut self) {
        self.up = false;
        self.to_server.clear();
        self.to_client.clear();
        self.client.endpoint.connection_lost(self.now);
        assert!(self.client.run().is_empty());
        if let Some(id) = self.serving.take() {
            let server = self.sessions.get_mut(&id).unwrap();
            server.endpoint.connection_lost(self.now);
            assert!(server.run().is_empty());
        }
    }

    /// A new connection opens.
    fn reconnect(&mut self) {
        self.up = true;
        self.client.endpoint.connection_opened();
        let out = self.client.run();
        self.to_server.extend(out);
    }

    fn advance(&mut self, ms: u64) {
        self.now += ms;
        let now = self.now;
        self.client.endpoint.handle_timeout(now);
        self.client.run();
        for server in self.sessions.values_mut() {
            server.endpoint.handle_timeout(now);
            server.run();
        }
    }

    /// The process holding the session leaves: its endpoint hands the
    /// session to a fresh one (another process's), which the session's id
    /// now reaches. Returns the old endpoint's side.
    fn hand_off(&mut self) -> Side {
        let id = self.sessions.keys().next().cloned().expect("a session");
        let mut old = self.sessions.remove(&id).unwrap();
        let handed = old.endpoint.hand_off().expect("handed off");
        assert!(old.run().is_empty(), "nothing goes out from the endpoint that handed it off");
        // Between processes it crosses as JSON text, its messages as they go on the wire.
        #[cfg(feature = "handoff")]
        let handed = {
            let text = wire::handed(&handed).to_string();
            wire::handed_from(&serde_json::from_str(&text).unwrap()).expect("a handed session reads back")
        };
        let mut fresh = Side::server("secret-elsewhere", self.max_kept);
        assert!(fresh.endpoint.take_over(handed, self.now));
        self.sessions.insert(id, fresh);
        old
    }

    fn check_once(&self) {
        assert!(self.client.twice.is_empty(), "settled twice: {:?}", self.client.twice);
    }
}

fn result(world: &World, waiter: u32) -> Option<Json> {
    match world.client.outcome(waiter) {
        Some(Outcome::Result(result)) => Some(result.clone()),
        _ => None,
    }
}

fn closed(world: &World, waiter: u32) -> bool {
    world.client.outcome(waiter) == Some(&Outcome::Failed(Failure::ConnectionClosed))
}

#[test]
fn a_session_is_granted_to_a_client_that_asks() {
    let mut world = World::new();
    world.settle();
    assert!(world.client.endpoint.session_id().is_some_and(|id| id.starts_with("secret-")));
    let granted = world.client.endpoint.session_id().map(String::from);
    assert_eq!(granted.as_deref(), world.only_session().endpoint.session_id());
}

#[test]
fn a_call_lost_on_the_way_goes_again_after_the_reconnect() {
    let mut world = World::new();
    world.settle();
    world.client_turn(|c| c.call(1, "echo", json!(["a"])));
    world.drop_connection();
    assert!(world.client.outcome(1).is_none(), "the call waits for the session");
    world.reconnect();
    world.settle();
    assert_eq!(result(&world, 1), Some(json!(["a"])));
    assert_eq!(world.only_session().ran, vec![json!(["a"])]);
    world.check_once();
}

#[test]
fn an_answer_lost_on_the_way_is_sent_again_and_the_call_runs_once() {
    let mut world = World::new();
    world.settle();
    world.client_turn(|c| c.call(1, "echo", json!(["b"])));
    assert!(world.step_server(), "the call reaches the server, which answers");
    assert_eq!(world.to_client.len(), 1);
    world.drop_connection();
    world.reconnect();
    world.settle();
    assert_eq!(result(&world, 1), Some(json!(["b"])));
    assert_eq!(world.only_session().ran.len(), 1, "never executed twice");
    world.check_once();
}

#[test]
fn a_call_answered_while_disconnected_is_answered_after_the_reconnect() {
    let mut world = World::new();
    world.settle();
    world.client_turn(|c| c.call(1, "later", json!(["build"])));
    world.settle();
    let id = world.serving.clone().unwrap();
    world.drop_connection();
    // The build finishes while nobody is connected, and a notification follows it.
    world.server_turn(&id, |s| {
        let call = s.later.remove(0);
        s.endpoint.complete(call, Ok(json!("built")));
        s.endpoint.notify(json!("note"), Some(json!(["after"]))).unwrap();
    });
    world.advance(30_000);
    world.reconnect();
    world.settle();
    assert_eq!(result(&world, 1), Some(json!("built")));
    assert_eq!(world.client.notes, vec![json!(["after"])]);
    world.check_once();
}

#[test]
fn the_connection_drops_during_the_reconnect_itself() {
    let mut world = World::new();
    world.settle();
    world.client_turn(|c| c.call(1, "later", json!([])));
    world.settle();
    world.drop_connection();
    world.client_turn(|c| c.call(2, "echo", json!(["while away"])));
    world.reconnect();
    // The hello arrives, the answer to it is lost.
    assert!(world.step_server());
    world.drop_connection();
    world.reconnect();
    world.settle();
    let id = world.serving.clone().unwrap();
    world.server_turn(&id, |s| {
        let call = s.later.remove(0);
        s.endpoint.complete(call, Ok(json!("late")));
    });
    world.settle();
    assert_eq!(result(&world, 1), Some(json!("late")));
    assert_eq!(result(&world, 2), Some(json!(["while away"])));
    assert_eq!(world.only_session().ran.len(), 2);
    world.check_once();
}

#[test]
fn a_batch_and_a_stream_cut_halfway_arrive_whole() {
    let mut world = World::new();
    world.settle();
    // A turn's calls go as one batch toward a server that takes batches.
    world.client_turn(|c| {
        c.call(1, "echo", json!([1]));
        c.call(2, "echo", json!([2]));
        c.call(3, "stream", json!(["x", "y", "z"]));
    });
    // The first call went alone; the batch of the other two reaches the server.
    assert!(world.step_server());
    assert!(world.step_server());
    // Some of the answers and chunks reach the client.
    assert!(world.step_client());
    assert!(world.step_client());
    world.drop_connection();
    world.reconnect();
    world.settle();
    assert_eq!(result(&world, 1), Some(json!([1])));
    assert_eq!(result(&world, 2), Some(json!([2])));
    assert_eq!(result(&world, 3), Some(json!("done")));
    let chunks: Vec<Json> = world.client.chunks.iter().map(|(_, c)| c.clone()).collect();
    assert_eq!(chunks, vec![json!("x"), json!("y"), json!("z")], "each chunk once, in order");
    assert_eq!(world.only_session().ran.len(), 3);
    world.check_once();
}

#[test]
fn acknowledgements_bound_what_each_side_keeps() {
    let mut world = World::new();
    world.settle();
    for n in 0..200 {
        world.client_turn(|c| c.call(n, "echo", json!([n])));
        world.settle();
    }
    // 200 calls and answers each way; each side keeps less than an acknowledgement's worth.
    let bound = ACK_EVERY as usize;
    assert!(world.client.endpoint.session_kept() < bound, "client keeps {}", world.client.endpoint.session_kept());
    let kept = world.only_session().endpoint.session_kept();
    assert!(kept < bound, "server keeps {kept}");
    for n in 0..200 {
        assert_eq!(result(&world, n), Some(json!([n])));
    }
}

#[test]
fn a_session_kept_past_its_grace_is_gone_and_its_calls_fail() {
    let mut world = World::new();
    world.settle();
    world.client_turn(|c| c.call(1, "later", json!([])));
    world.settle();
    world.drop_connection();
    world.advance(GRACE + 1);
    assert!(closed(&world, 1), "the client gives up on its own clock");
    assert_eq!(world.client.ended, 1);
    assert_eq!(world.only_session().ended, 1, "the server forgot it");
    // The next connection asks for a new session, and works.
    world.reconnect();
    world.client_turn(|c| c.call(2, "echo", json!(["new"])));
    world.settle();
    assert_eq!(result(&world, 2), Some(json!(["new"])));
    world.check_once();
}

#[test]
fn a_restarted_server_fails_what_was_sent_and_takes_what_was_held() {
    let mut world = World::new();
    world.settle();
    world.client_turn(|c| c.call(1, "later", json!([])));
    world.settle();
    world.drop_connection();
    world.client_turn(|c| c.call(2, "echo", json!(["held"])));
    // The server restarts: its sessions are gone.
    world.sessions.clear();
    world.reconnect();
    world.settle();
    assert!(closed(&world, 1), "the call that had gone cannot be recovered");
    assert_eq!(result(&world, 2), Some(json!(["held"])), "the call that never left goes on the new session");
    assert_ne!(world.client.endpoint.session_id(), None);
    assert_eq!(world.client.ended, 1, "the session presented ended, explicitly");
    world.check_once();
}

#[test]
fn a_session_handed_to_another_endpoint_resumes_there_and_nothing_runs_twice() {
    let mut world = World::new();
    world.settle();
    let id = world.serving.clone().unwrap();
    world.client_turn(|c| c.call(1, "echo", json!([1])));
    world.settle();
    // Run and answered by the first endpoint; the answer is lost with the connection.
    world.client_turn(|c| c.call(2, "echo", json!([2])));
    assert!(world.step_server());
    world.drop_connection();
    // While away: the client calls again, the first endpoint pushes.
    world.client_turn(|c| c.call(3, "echo", json!([3])));
    world.server_turn(&id, |s| s.endpoint.notify(json!("note"), Some(json!(["pushed"]))).unwrap());
    let old = world.hand_off();
    world.reconnect();
    world.settle();
    assert_eq!(result(&world, 2), Some(json!([2])), "the answer the first endpoint made arrives, once");
    assert_eq!(result(&world, 3), Some(json!([3])), "the call sent while away runs where the session is now");
    assert_eq!(world.client.notes, [json!(["pushed"])], "the push held by the first endpoint");
    let ran: Vec<Json> = old.ran.iter().chain(world.only_session().ran.iter()).cloned().collect();
    assert_eq!(ran, [json!([1]), json!([2]), json!([3])], "each call ran once, across both endpoints");
    assert_eq!(world.client.ended, 0, "the session went on");
    world.client_turn(|c| c.call(4, "echo", json!([4])));
    world.settle();
    assert_eq!(result(&world, 4), Some(json!([4])));
    world.check_once();
}

#[test]
fn a_session_is_handed_off_only_with_nothing_of_its_own_running() {
    let mut world = World::new();
    world.settle();
    let id = world.serving.clone().unwrap();
    world.client_turn(|c| c.call(1, "later", json!([])));
    world.settle();
    // The server's own call to the client, waiting for its answer.
    world.server_turn(&id, |s| s.call(9, "echo", json!(["from the server"])));
    assert_eq!(world.server().endpoint.hand_off(), Err(HandOffRefused::Busy), "a call is being served");
    let call = world.server().later.pop().unwrap();
    world.server_turn(&id, |s| s.endpoint.complete(call, Ok(json!("done"))));
    world.drop_connection();
    let old = world.hand_off();
    assert_eq!(
        old.outcome(9),
        Some(&Outcome::Failed(Failure::ConnectionClosed)),
        "its caller stays with the old endpoint"
    );
    world.reconnect();
    world.settle();
    assert_eq!(result(&world, 1), Some(json!("done")));
    // The server's call went again from the new endpoint: the client ran it once, its answer is nobody's there.
    assert_eq!(world.client.ran, [json!(["from the server"])]);
    assert!(world.only_session().settled.is_empty());
    world.check_once();
    // Neither a client nor a taken endpoint hands or takes one.
    assert_eq!(world.client.endpoint.hand_off(), Err(HandOffRefused::NoSession));
    let handed = world.only_session().endpoint.hand_off();
    assert!(handed.is_ok(), "a quiet session goes");
    let mut busy = Side::server("secret-busy", 10);
    let hello = json!({"jsonrpc": "2.0", "method": "$/ready", "params": {"ack": false, "session": {"received": 0}}});
    busy.endpoint.receive(&hello, Framing::Text);
    busy.run();
    assert!(!busy.endpoint.take_over(handed.unwrap(), 0), "an endpoint with a session going takes no other");
}

#[test]
fn calls_of_the_endpoint_that_takes_a_session_over_follow_the_ids_of_the_one_that_handed_it() {
    let mut world = World::new();
    world.settle();
    let id = world.serving.clone().unwrap();
    // A call of the server's whose request the client has not received when the connection drops.
    world.drop_connection();
    world.server_turn(&id, |s| s.call(9, "echo", json!(["second"])));
    let old = world.hand_off();
    assert_eq!(old.outcome(9), Some(&Outcome::Failed(Failure::ConnectionClosed)));
    // The new endpoint's own call, made before the client is back.
    world.server_turn(&id, |s| s.call(10, "echo", json!(["third"])));
    world.reconnect();
    world.settle();
    // The old call's request went again and was answered: that answer
    // must not settle call 10, whose id would have been the same.
    assert_eq!(world.only_session().outcome(10), Some(&Outcome::Result(json!(["third"]))));
    assert_eq!(world.client.ran, [json!(["second"]), json!(["third"])]);
    world.check_once();
}

#[cfg(feature = "handoff")]
#[test]
fn what_is_not_a_handed_session_is_not_taken_for_one() {
    let good = json!({"id": "s", "grace": 1, "maxKept": 4, "sent": 1, "received": 0, "nextCall": 2,
        "unacked": [{"jsonrpc": "2.0", "method": "note"}], "held": [[{"jsonrpc": "2.0", "method": "note"}]]});
    assert!(wire::handed_from(&good).is_some());
    for (name, bad) in [
        ("id", json!(7)),
        ("sent", json!(-1)),
        ("grace", json!("long")),
        ("unacked", json!(["text"])),
        ("held", json!([[]])),
        ("nextCall", json!(null)),
    ] {
        let mut value = good.clone();
        value[name] = bad;
        assert!(wire::handed_from(&value).is_none(), "{name}");
    }
    // More unacknowledged than were ever sent: no endpoint takes it.
    let mut value = good.clone();
    value["sent"] = json!(0);
    let mut fresh = Side::server("secret-fresh", 10);
    assert!(!fresh.endpoint.take_over(wire::handed_from(&value).unwrap(), 0));
    assert!(fresh.endpoint.take_over(wire::handed_from(&good).unwrap(), 0));
}

#[test]
fn a_handed_session_nobody_presents_ends_at_its_grace() {
    let mut world = World::new();
    world.settle();
    world.client_turn(|c| c.call(1, "echo", json!([1])));
    world.settle();
    world.drop_connection();
    world.hand_off();
    world.advance(GRACE - 1);
    assert_eq!(world.only_session().ended, 0);
    world.advance(2);
    assert_eq!(world.only_session().ended, 1, "over at its grace, counted from the hand-off");
}

#[test]
fn a_new_session_takes_the_held_calls_and_notifications_and_nothing_else_held() {
    let mut world = World::new();
    world.settle();
    let id = world.serving.clone().unwrap();
    world.server_turn(&id, |s| s.call(9, "later", json!([])));
    world.client_turn(|c| {
        c.call(1, "later", json!([]));
        c.call(2, "later", json!([]));
    });
    world.settle();
    let answer = world.client.later.pop().unwrap();
    world.drop_connection();
    // Held while no connection carries the session: an answer, cancels, calls and a notification.
    world.client_turn(|c| c.endpoint.complete(answer, Ok(json!("late"))));
    world.client_turn(|c| {
        c.endpoint.cancel(1);
        c.call(3, "echo", json!(["three"]));
        c.endpoint.notify(json!("note"), Some(json!(["held"]))).unwrap();
    });
    world.client_turn(|c| {
        c.endpoint.cancel(2);
        c.call(4, "echo", json!(["four"]));
    });
    world.sessions.clear();
    world.reconnect();
    assert!(world.step_server(), "the hello");
    assert!(world.step_client(), "the answer: a new session");
    let sent: Vec<Json> = world.to_server.iter().cloned().collect();
    let batches: Vec<usize> = sent.iter().filter_map(|m| m.as_array().map(Vec::len)).collect();
    assert_eq!(batches, [2], "a held batch goes without what was not a call or a notification: {sent:?}");
    let one = |m: &Json| m.as_array().cloned().unwrap_or_else(|| vec![m.clone()]);
    let methods: Vec<Json> = sent.iter().flat_map(one).map(|m| m["method"].clone()).collect();
    assert_eq!(methods, [json!("echo"), json!("note"), json!("echo")], "{sent:?}");
    world.settle();
    assert_eq!(result(&world, 3), Some(json!(["three"])));
    assert_eq!(result(&world, 4), Some(json!(["four"])));
    assert_eq!(world.server().notes, [json!(["held"])]);
    world.check_once();
}

#[test]
fn someone_elses_session_id_gives_nothing_of_that_session() {
    let mut world = World::new();
    world.settle();
    let theirs = world.client.endpoint.session_id().unwrap().to_string();
    // The server holds a notification for the first client.
    let id = world.serving.clone().unwrap();
    world.drop_connection();
    world.server_turn(&id, |s| s.endpoint.notify(json!("note"), Some(json!(["private"]))).unwrap());
    // A second client, on its own connection, presents a made-up id and then
    // the public name of the first one's endpoint: a server endpoint that is
    // not the session's answers neither with the session.
    let mut stranger = Side::server("secret-other", 100);
    let hello = json!({"jsonrpc": "2.0", "method": "$/ready", "params": {"ack": false, "session": {"id": "guess", "received": 0}}});
    stranger.endpoint.receive(&hello, Framing::Text);
    let answer = stranger.run();
    assert_eq!(answer[0]["params"]["session"]["id"], json!("secret-other"));
    assert_eq!(answer[0]["params"]["session"]["resumed"], json!(false));
    assert_eq!(answer.len(), 1, "nothing else");
    // The session endpoint itself, asked for another id, gives nothing away.
    let session = world.sessions.get_mut(&theirs).unwrap();
    session.endpoint.receive(&hello, Framing::Text);
    let answer = session.run();
    assert_eq!(answer.len(), 1);
    assert_eq!(answer[0]["params"].get("session"), None);
    assert!(!answer.iter().any(|m| m.to_string().contains("private")));
}

#[test]
fn a_stranger_server_gets_todays_behaviour() {
    // A server that keeps no sessions: calls sent fail when the connection drops.
    let config = Config { handshake: Handshake::Announce, ..Config::new(Roles::PEER) };
    let mut client = Side::new(Endpoint::with_session(config, None, Some(SessionSetup::Client { max_kept: 100 })));
    let hello = client.run();
    assert!(hello[0]["params"]["session"].is_object(), "the hello asks");
    client.call(1, "echo", json!([]));
    let call = client.run();
    assert_eq!(call.len(), 1);
    // The stranger answers the call and ignores the hello.
    client.endpoint.receive(&json!({"jsonrpc": "2.0", "result": 1, "id": call[0]["id"]}), Framing::Text);
    client.run();
    client.call(2, "echo", json!([]));
    client.run();
    assert_eq!(client.endpoint.session_kept(), 0, "nothing kept toward a stranger");
    client.endpoint.connection_lost(5);
    client.run();
    assert_eq!(client.outcome(2), Some(&Outcome::Failed(Failure::ConnectionClosed)));
    assert_eq!(client.endpoint.session_id(), None);
}

#[test]
fn a_stranger_client_gets_no_session() {
    let mut server = Side::server("secret-1", 100);
    server.endpoint.receive(&json!({"jsonrpc": "2.0", "method": "echo", "params": [1], "id": 1}), Framing::Text);
    let out = server.run();
    assert_eq!(out, vec![json!({"jsonrpc": "2.0", "result": [1], "id": 1})]);
    assert_eq!(server.endpoint.session_id(), None);
    assert!(server.endpoint.is_idle(), "nothing kept for a stranger");
    server.endpoint.connection_lost(1);
    assert_eq!(server.endpoint.session_id(), None);
}

#[test]
fn a_session_that_outgrows_its_bound_ends_and_its_calls_fail() {
    let mut world = World::with_bound(8);
    world.settle();
    world.client_turn(|c| c.call(1, "later", json!([])));
    world.settle();
    let id = world.serving.clone().unwrap();
    world.drop_connection();
    world.server_turn(&id, |s| {
        for n in 0..20 {
            s.endpoint.notify(json!("note"), Some(json!([n]))).unwrap();
        }
    });
    assert_eq!(world.sessions[&id].ended, 1, "the server's session ended at its bound");
    world.reconnect();
    world.settle();
    assert!(closed(&world, 1));
    assert!(world.client.notes.is_empty(), "nothing of a broken session is delivered");
    world.check_once();
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    /// Calls, deliveries, drops and hand-offs to another endpoint in any
    /// order: once the connection comes back within the grace and
    /// everything is delivered, every call is answered exactly once and
    /// every handler ran exactly once, across every endpoint that held the session.
    #[test]
    fn no_call_is_lost_or_run_twice(steps in proptest::collection::vec(0u8..7, 1..80)) {
        let mut world = World::new();
        world.settle();
        let mut made = 0u32;
        // What the endpoints that handed the session off ran.
        let mut retired: Vec<Json> = Vec::new();
        for step in steps {
            match step {
                0 => {
                    made += 1;
                    let n = made;
                    world.client_turn(|c| c.call(n, "echo", json!([n])));
                }
                1 => { world.step_server(); }
                2 => { world.step_client(); }
                3 => {
                    made += 1;
                    let n = made;
                    world.client_turn(|c| c.call(n, "stream", json!([n, n])));
                }
                4 if world.up => world.drop_connection(),
                6 if !world.up && !world.sessions.is_empty() => retired.extend(world.hand_off().ran),
                _ if !world.up => world.reconnect(),
                _ => { world.step_server(); world.step_client(); }
            }
        }
        if !world.up {
            world.reconnect();
        }
        world.settle();
        for n in 1..=made {
            prop_assert!(result(&world, n).is_some(), "call {n} answered: {:?}", world.client.outcome(n));
        }
        prop_assert!(world.client.twice.is_empty());
        let mut ran: Vec<Json> = world.sessions.values().flat_map(|s| s.ran.clone()).collect();
        ran.sort_by_key(|params| params[0].as_u64());
        ran.dedup();
        let runs: usize = world.sessions.values().map(|s| s.ran.len()).sum::<usize>() + retired.len();
        prop_assert_eq!(runs, made as usize, "each handler ran once");
        prop_assert_eq!(world.sessions.len(), 1, "one session throughout");
    }
}

#[test]
fn a_destroyed_endpoint_keeps_no_session_and_wants_no_timer() {
    let mut world = World::new();
    world.settle();
    world.drop_connection();
    assert!(world.client.endpoint.poll_timeout().deadline.is_some(), "the grace is timed");
    world.client.endpoint.destroy();
    world.only_session().endpoint.destroy();
    assert_eq!(world.client.endpoint.poll_timeout().deadline, None);
    assert_eq!(world.only_session().endpoint.poll_timeout().deadline, None);
    assert_eq!(world.client.endpoint.session_kept(), 0);
}
