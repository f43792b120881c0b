//! A resumable session: what a connection that drops and comes back owes
//! each side, so that no call is lost and none runs twice.
//!
//! Both sides count the session's messages they send and receive (a `$/ready`
//! and an `$/ack` belong to one connection and are not counted). Each keeps
//! what it sent until the other side acknowledges it (`$/ack`, every
//! [`ACK_EVERY`] messages), and what it makes while no connection carries the
//! session. After a reconnect the client's hello presents the session and how
//! many messages it received; the server's answer says how many it received;
//! each then sends again only what came after, then what it held. A message
//! is never sent twice on one session, so a call never runs twice.
//!
//! The client asks in its hello and gets a session only from a server whose
//! answer grants one; a server grants one only to a hello that asks, as the
//! connection's first message. Toward anyone else nothing is counted or kept.

use crate::prelude::*;

use super::super::pending::Deadline;
use super::super::wire::{Message, SessionHello, Transmit};

/// A receiver acknowledges once it has received this many messages since it
/// last said so: the sender keeps at most about this many once acknowledged.
pub const ACK_EVERY: u64 = 16;

/// How long a server keeps a session whose connection dropped, by default.
pub const DEFAULT_GRACE_MS: u64 = 60_000;

/// The longest grace a server's answer may set on the client.
const MAX_GRACE_MS: u64 = 24 * 60 * 60 * 1000;

/// How a host sets up an endpoint's side of a resumable session.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SessionSetup {
    /// Ask for a session in the hello; present it after each reconnect.
    Client {
        /// The most messages kept for the session (unacknowledged or made
        /// while disconnected); past it the session cannot be resumed.
        max_kept: usize,
    },
    /// Grant a session to a hello that asks, under `id`: unguessable, drawn
    /// by the host, since presenting it resumes the session.
    Server { id: String, grace_ms: u64, max_kept: usize },
}

/// A server's session as one endpoint hands it to another (see
/// [`Endpoint::hand_off`](super::Endpoint::hand_off)): its id and settings,
/// what each side has counted, and what it keeps to send again.
#[derive(Clone, Debug, PartialEq)]
pub struct HandedSession<V> {
    pub id: String,
    pub grace_ms: u64,
    pub max_kept: usize,
    /// Messages this side sent on the session, and received.
    pub sent: u64,
    pub received: u64,
    /// The last of those sent, not acknowledged yet, oldest first.
    pub unacked: Vec<Transmit<V>>,
    /// Made while no connection carried the session: not numbered yet.
    pub held: Vec<Transmit<V>>,
    /// The id the handing endpoint's next call would have taken: the taking
    /// endpoint's calls start there, so that the answer to one of the old
    /// endpoint's calls, sent again, settles none of the new one's.
    pub next_call: u64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    /// Client: asked on this connection, no answer yet. Server: nothing
    /// received yet. Messages go out, and are kept in case it is granted.
    Asking,
    /// Granted, and carried by the connection.
    Attached,
    /// Granted; no connection carries it (until `expires`).
    Detached,
    /// Client: a hello on a new connection presented it; waiting for the answer.
    Resuming,
    /// No session: the other side does not take part, or it ended.
    Off,
}

/// What the other side's `$/ready` did to the session.
pub(super) enum Answered<V> {
    /// Nothing to do (no session involved, or an answer to nothing asked).
    Nothing,
    /// Server: answer the hello with this, then send these again.
    Answer(SessionHello, Vec<Transmit<V>>),
    /// Client: the session goes on; send these again.
    Resumed(Vec<Transmit<V>>),
    /// Client: a new session replaces the one presented (or none was
    /// granted): the calls not carried by `held` are lost; send `held`.
    Replaced { held: Vec<Transmit<V>> },
    /// The session is over: fail its calls. A server answers with `SessionHello` first.
    Lost(Option<SessionHello>),
}

pub(super) struct Session<V> {
    client: bool,
    /// The session's id: the server's own from the start, the client's once granted.
    id: Option<String>,
    phase: Phase,
    /// Messages of the session sent (numbered 1, 2, …).
    sent: u64,
    /// The last `unacked.len()` of them, not yet acknowledged.
    unacked: Vec<Transmit<V>>,
    /// Made while no connection carried the session: not numbered yet.
    held: Vec<Transmit<V>>,
    received: u64,
    /// Client: received on this connection before the answer to its hello.
    received_here: u64,
    /// The count of received messages last told to the other side.
    reported: u64,
    grace_ms: u64,
    expires: Option<Deadline>,
    max_kept: usize,
    /// Client: this connection's hello asked (or presented) already.
    asked_here: bool,
    /// Client: a connection is up (or opening: the first one is, from the start).
    connected: bool,
    /// Messages in `unacked` and `held` (a batch counts each of its own).
    kept: usize,
}

/// How many messages one send carries.
fn weight<V>(transmit: &Transmit<V>) -> usize {
    match transmit {
        Transmit::Single(_) => 1,
        Transmit::Batch(messages) => messages.len(),
    }
}

/// How many messages the sends `held` carry, in a plain loop: `map` and
/// `sum` linked a fold of their own.
fn weight_of<V>(held: &[Transmit<V>]) -> usize {
    let mut total = 0;
    for transmit in held {
        total += weight(transmit);
    }
    total
}

/// The copy of a sent message the session keeps, to send it again. Not
/// `Clone`: a `$/ready` belongs to its connection and is never kept, so its
/// copy leaves out the names a derived clone would copy for nothing.
fn kept_copy<V: Clone>(transmit: &Transmit<V>) -> Transmit<V> {
    match transmit {
        Transmit::Single(message) => Transmit::Single(kept_message(message)),
        Transmit::Batch(messages) => {
            let mut copy = Vec::with_capacity(messages.len());
            for message in messages {
                copy.push(kept_message(message));
            }
            Transmit::Batch(copy)
        }
    }
}

fn kept_message<V: Clone>(message: &Message<V>) -> Message<V> {
    match message {
        #[cfg(not(feature = "references"))]
        Message::Request { id, method, params, meta } => {
            Message::Request { id: *id, method: method.clone(), params: params.clone(), meta: meta.clone() }
        }
        #[cfg(not(feature = "references"))]
        Message::Notification { method, params } => {
            Message::Notification { method: method.clone(), params: params.clone() }
        }
        #[cfg(feature = "references")]
        Message::Request { id, method, params, meta, refs } => Message::Request {
            id: *id,
            method: method.clone(),
            params: params.clone(),
            meta: meta.clone(),
            refs: refs.clone(),
        },
        #[cfg(feature = "references")]
        Message::Notification { method, params, refs } => {
            Message::Notification { method: method.clone(), params: params.clone(), refs: refs.clone() }
        }
        #[cfg(feature = "references")]
        Message::Release { refs } => Message::Release { refs: refs.clone() },
        #[cfg(feature = "handoff")]
        Message::Kept(message) => Message::Kept(message.clone()),
        Message::Response(response) => Message::Response(response.clone()),
        Message::Cancel { id, convention } => Message::Cancel { id: *id, convention: *convention },
        Message::Chunk { id, chunk } => Message::Chunk { id: id.clone(), chunk: chunk.clone() },
        Message::StreamEnd { id } => Message::StreamEnd { id: id.clone() },
        Message::Credit { id, credit } => Message::Credit { id: *id, credit: *credit },
        Message::Progress { params, mcp } => Message::Progress { params: params.clone(), mcp: *mcp },
        Message::Ack { received } => Message::Ack { received: *received },
        Message::Ready { ack, capabilities, .. } => {
            Message::Ready { ack: *ack, capabilities: *capabilities, presence: None, session: None }
        }
    }
}

impl<V: Clone> Session<V> {
    pub(super) fn new(setup: SessionSetup) -> Self {
        let (client, id, grace_ms, max_kept) = match setup {
            SessionSetup::Client { max_kept } => (true, None, DEFAULT_GRACE_MS, max_kept),
            SessionSetup::Server { id, grace_ms, max_kept } => (false, Some(id), grace_ms, max_kept),
        };
        Session {
            client,
            id,
            phase: Phase::Asking,
            sent: 0,
            unacked: Vec::new(),
            held: Vec::new(),
            received: 0,
            received_here: 0,
            reported: 0,
            grace_ms,
            expires: None,
            max_kept: max_kept.max(1),
            asked_here: false,
            connected: true,
            kept: 0,
        }
    }

    /// Server: what the session keeps and counts, taken out (it is over
    /// here), with the id this side's next call would take; `None` without
    /// a granted session.
    pub(super) fn hand_off(&mut self, next_call: u64) -> Option<HandedSession<V>> {
        if self.client || !matches!(self.phase, Phase::Attached | Phase::Detached) {
            return None;
        }
        let handed = HandedSession {
            id: self.id.clone()?,
            grace_ms: self.grace_ms,
            max_kept: self.max_kept,
            sent: self.sent,
            received: self.received,
            unacked: core::mem::take(&mut self.unacked),
            held: core::mem::take(&mut self.held),
            next_call,
        };
        self.end();
        Some(handed)
    }

    /// Server: a session handed over from another endpoint, its connection
    /// gone since `now`: detached, its grace counting from then. `None` when
    /// what it says cannot be a session's (more unacknowledged than sent).
    pub(super) fn taken_over(handed: HandedSession<V>, now: Deadline) -> Option<Self> {
        if handed.unacked.len() as u64 > handed.sent || handed.id.is_empty() {
            return None;
        }
        let kept = weight_of(&handed.unacked) + weight_of(&handed.held);
        Some(Session {
            client: false,
            id: Some(handed.id),
            phase: Phase::Detached,
            sent: handed.sent,
            unacked: handed.unacked,
            held: handed.held,
            received: handed.received,
            received_here: 0,
            reported: handed.received,
            grace_ms: handed.grace_ms,
            expires: Some(now.saturating_add(handed.grace_ms)),
            max_kept: handed.max_kept.max(1),
            asked_here: false,
            connected: true,
            kept,
        })
    }

    /// The id of the session this side is in (granted, whether or not a
    /// connection carries it now).
    pub(super) fn id(&self) -> Option<&str> {
        match self.phase {
            Phase::Attached | Phase::Detached | Phase::Resuming => self.id.as_deref(),
            Phase::Asking | Phase::Off => None,
        }
    }

    pub(super) fn expires(&self) -> Option<Deadline> {
        self.expires
    }

    /// The `session` member of the client's hello on this connection.
    pub(super) fn hello(&mut self) -> Option<SessionHello> {
        if !self.client {
            return None;
        }
        self.asked_here = true;
        let id = match self.phase {
            Phase::Resuming | Phase::Detached => self.id.clone(),
            _ => None,
        };
        self.reported = self.received;
        Some(SessionHello { id, received: self.received, resumed: None, grace_ms: None })
    }

    /// A message this side sends: `Some` to send it now (numbered and kept
    /// when it belongs to the session), `None` when it waits for a
    /// connection. `Err` when keeping it would pass the bound: the session
    /// cannot be whole any more.
    pub(super) fn outgoing(&mut self, transmit: Transmit<V>) -> Result<Option<Transmit<V>>, ()> {
        match &transmit {
            Transmit::Single(Message::Ready { .. }) => return Ok(Some(transmit)),
            Transmit::Single(Message::Ack { .. }) => return Ok((self.phase == Phase::Attached).then_some(transmit)),
            _ => {}
        }
        match self.phase {
            Phase::Off if self.connected => Ok(Some(transmit)),
            Phase::Asking | Phase::Attached if self.connected => {
                self.number(kept_copy(&transmit));
                while self.kept > self.max_kept && !self.unacked.is_empty() {
                    match self.phase {
                        // Nobody acknowledges: a peer that will never grant one.
                        Phase::Asking => self.end(),
                        // The oldest can no longer be sent again; a resume that needs it fails.
                        _ => self.forget(1),
                    }
                }
                Ok(Some(transmit))
            }
            // It waits for a connection (a client's next one: after its hello).
            _ => {
                self.kept += weight(&transmit);
                self.held.push(transmit);
                match self.kept > self.max_kept {
                    true => Err(()),
                    false => Ok(None),
                }
            }
        }
    }

    /// Counts a message sent and keeps it until it is acknowledged.
    fn number(&mut self, transmit: Transmit<V>) {
        self.sent += 1;
        self.kept += weight(&transmit);
        self.unacked.push(transmit);
    }

    /// Forgets the `n` oldest sent messages.
    fn forget(&mut self, n: usize) {
        // What is left moves to a vector of its own: `Vec::drain` of a range
        // links its own range checks and their panic messages for this one use.
        let left = self.unacked.split_off(n.min(self.unacked.len()));
        for transmit in core::mem::replace(&mut self.unacked, left) {
            self.kept -= weight(&transmit);
        }
    }

    /// A message of the other side's came (not a `$/ready` or `$/ack`);
    /// `answers` when it answers one of this side's calls. Returns the
    /// count to acknowledge, when an `$/ack` is due.
    pub(super) fn incoming(&mut self, answers: bool) -> Option<u64> {
        match self.phase {
            // A server's session starts with the hello: anything else first is a stranger.
            Phase::Asking if !self.client => self.end(),
            // An answer before the answer to our hello: a peer that ignored it.
            Phase::Asking if answers => self.end(),
            Phase::Asking | Phase::Resuming => self.received_here += 1,
            Phase::Attached | Phase::Detached => {
                self.received += 1;
                if self.phase == Phase::Attached && self.received - self.reported >= ACK_EVERY {
                    self.reported = self.received;
                    return Some(self.received);
                }
            }
            Phase::Off => {}
        }
        None
    }

    /// The other side has received `received` of this side's messages.
    pub(super) fn acknowledged(&mut self, received: u64) {
        if self.phase == Phase::Off {
            return;
        }
        let forgotten = self.sent - self.unacked.len() as u64;
        if received > forgotten && received <= self.sent {
            self.forget((received - forgotten) as usize);
        }
    }

    /// The other side's `$/ready` (`ack`: an answer to ours), with its `session` member.
    pub(super) fn ready(&mut self, ack: bool, hello: Option<SessionHello>) -> Answered<V> {
        match (self.client, ack) {
            (false, false) => self.hello_received(hello),
            (true, true) if self.asked_here && matches!(self.phase, Phase::Asking | Phase::Resuming) => {
                self.answer_received(hello)
            }
            _ => Answered::Nothing,
        }
    }

    /// Server: a client's hello.
    fn hello_received(&mut self, hello: Option<SessionHello>) -> Answered<V> {
        let Some(hello) = hello else {
            // A hello that asks for nothing: no session (unless one goes on already).
            if self.phase == Phase::Asking {
                self.end();
            }
            return Answered::Nothing;
        };
        match (self.phase, hello.id) {
            // The connection's first message asks: a new session, whatever it presented
            // (a session this side does not hold gives nothing of anyone's).
            (Phase::Asking, _) => {
                self.phase = Phase::Attached;
                // What went out before the hello counts from the start.
                self.acknowledged(hello.received);
                let answer = self.answer(false);
                Answered::Answer(answer, Vec::new())
            }
            (Phase::Attached | Phase::Detached, Some(presented)) if self.id.as_ref() == Some(&presented) => {
                match self.resume(hello.received) {
                    Some(again) => Answered::Answer(self.answer(true), again),
                    None => {
                        let refused = SessionHello { id: None, received: 0, resumed: Some(false), grace_ms: None };
                        self.end();
                        Answered::Lost(Some(refused))
                    }
                }
            }
            // Another session's id, or none, on an endpoint that has one: nothing of it is given away.
            _ => Answered::Nothing,
        }
    }

    fn answer(&mut self, resumed: bool) -> SessionHello {
        self.reported = self.received;
        SessionHello {
            id: self.id.clone(),
            received: self.received,
            resumed: Some(resumed),
            grace_ms: Some(self.grace_ms),
        }
    }

    /// Client: the server's answer to the hello of this connection.
    fn answer_received(&mut self, answer: Option<SessionHello>) -> Answered<V> {
        let resuming = self.phase == Phase::Resuming;
        let Some(SessionHello { id: Some(id), received, resumed, grace_ms }) = answer else {
            // No session granted: a server that keeps none (or that lost it).
            let held = self.take_held();
            self.end();
            return match resuming {
                true => Answered::Replaced { held },
                false => Answered::Nothing,
            };
        };
        self.grace_ms = grace_ms.unwrap_or(DEFAULT_GRACE_MS).min(MAX_GRACE_MS);
        if resuming && resumed == Some(true) && self.id.as_deref() == Some(id.as_str()) {
            return match self.resume(received) {
                Some(again) => Answered::Resumed(again),
                None => {
                    self.end();
                    Answered::Lost(None)
                }
            };
        }
        // A new session: counted from this connection's hello.
        self.id = Some(id);
        self.phase = Phase::Attached;
        self.expires = None;
        self.received = core::mem::take(&mut self.received_here);
        if !resuming {
            self.acknowledged(received);
            return Answered::Nothing;
        }
        self.sent = 0;
        self.forget(self.unacked.len());
        let held = self.take_held();
        Answered::Replaced { held }
    }

    /// The other side received `received` of this side's messages: what
    /// came after goes again, then what was held. `None` when some of what
    /// came after is no longer kept.
    fn resume(&mut self, received: u64) -> Option<Vec<Transmit<V>>> {
        let forgotten = self.sent - self.unacked.len() as u64;
        if received < forgotten || received > self.sent {
            return None;
        }
        self.forget((received - forgotten) as usize);
        self.phase = Phase::Attached;
        self.expires = None;
        self.received_here = 0;
        let mut again = Vec::with_capacity(self.unacked.len());
        for transmit in &self.unacked {
            again.push(kept_copy(transmit));
        }
        for transmit in self.take_held() {
            self.number(kept_copy(&transmit));
            again.push(transmit);
        }
        Some(again)
    }

    /// The connection dropped at `now`: whether the session goes on without
    /// it (until its grace runs out); otherwise the host fails what waits.
    pub(super) fn connection_lost(&mut self, now: Deadline) -> bool {
        self.asked_here = false;
        self.connected = !self.client;
        self.received_here = 0;
        match self.phase {
            Phase::Attached | Phase::Detached | Phase::Resuming => {
                self.phase = Phase::Detached;
                if self.expires.is_none() {
                    self.expires = Some(now.saturating_add(self.grace_ms));
                }
                true
            }
            Phase::Asking | Phase::Off => {
                self.restart();
                false
            }
        }
    }

    /// Client: a new connection is open. `None` when no hello is due;
    /// otherwise the hello goes, then these (a session asked for anew: what
    /// was held goes at once; one presented: it waits for the answer).
    pub(super) fn connection_opened(&mut self) -> Option<Vec<Transmit<V>>> {
        if !self.client || self.asked_here {
            return None;
        }
        self.connected = true;
        if self.phase == Phase::Detached {
            self.phase = Phase::Resuming;
            return Some(Vec::new());
        }
        self.restart();
        let held = self.take_held();
        for transmit in &held {
            self.number(kept_copy(transmit));
        }
        Some(held)
    }

    /// Whether its grace ran out by `now` (it is over then).
    pub(super) fn expired(&mut self, now: Deadline) -> bool {
        match self.expires {
            Some(at) if at <= now => {
                self.end();
                true
            }
            _ => false,
        }
    }

    /// Client: ask again from nothing on the next connection (what is held still goes).
    fn restart(&mut self) {
        if self.client {
            let held = self.take_held();
            self.end();
            self.phase = Phase::Asking;
            self.kept = weight_of(&held);
            self.held = held;
        }
    }

    /// The session is over; the next connection of a client asks anew.
    pub(super) fn end(&mut self) {
        self.phase = Phase::Off;
        self.sent = 0;
        self.received = 0;
        self.received_here = 0;
        self.reported = 0;
        self.unacked.clear();
        self.held.clear();
        self.kept = 0;
        self.expires = None;
        if self.client {
            self.id = None;
        }
    }

    /// What was held, no longer kept as such.
    fn take_held(&mut self) -> Vec<Transmit<V>> {
        let held = core::mem::take(&mut self.held);
        self.kept -= weight_of(&held);
        held
    }

    pub(super) fn is_client(&self) -> bool {
        self.client
    }

    /// Kept messages (a leak check, and a test's view of the bound).
    pub(super) fn kept(&self) -> usize {
        self.kept
    }
}
