//! The endpoint: one side of one connection, whole and sans-IO. It owns
//! every decision about what goes on the wire and when: the calls this side
//! makes (ids, deadlines on a fine and a coarse clock, cancellation, streamed
//! chunks), the calls it serves (through [`Dispatcher`]), the `$/ready`
//! handshake and what the other side said it accepts, and batching.
//!
//! The host feeds it inputs (a received message, a call to make, a handler's
//! outcome, the time when a timer fires) and polls what to do: [`Event`]s in
//! order, and [`Endpoint::poll_timeout`] for its timers. Nothing here reads a
//! clock or touches I/O, so two endpoints and a fake clock test all of it.
//!
//! Toward a peer that has not announced otherwise, the spec holds exactly:
//! every call is its own message, sent at once and in order, and a batch is
//! answered with one array once all its members are done. The fast paths
//! (a turn's calls as one batch; a batch answered as its members settle) are
//! used only toward a peer whose `$/ready` offered them, or when forced.

mod config;
mod connection;
mod dialect;
mod handoff;
mod incoming;
mod outgoing;
#[cfg(feature = "references")]
mod references;
mod serving;
mod session;

#[cfg(feature = "references")]
pub use config::ReferenceEvent;
pub use config::{
    Batching, CallOptions, Config, Dialect, Event, Failure, Handshake, Limits, Outcome, Timeouts, Undelivered,
    COARSE_FROM_MS, TICK_MS,
};
#[cfg(feature = "handoff")]
pub use handoff::kept_sends;
pub use handoff::HandOffRefused;
pub use session::{HandedSession, SessionSetup, ACK_EVERY, DEFAULT_GRACE_MS};

use crate::prelude::*;

use alloc::collections::VecDeque;

use outgoing::Queued;
use session::{Answered, Session};

#[cfg(feature = "references")]
use super::dispatch::Roles;
use super::dispatch::{Action, CallId, Dispatcher, TextRefusal};
use super::error::code;
use super::error::ErrorObject;
use super::inbound::{classify_envelope, Envelope, Framing, Inbound};
use super::message::{Id, Response};
use super::pending::{Deadline, Due, PendingTable};
use super::value::{Kind, Value};
use super::wire::{presence_of, progress_params, Capabilities, Message, SessionHello, Transmit, MAX_CREDIT};

/// A call of this side's, waiting to settle.
struct Call<W> {
    waiter: W,
    /// It left this side (a cancel is then worth sending).
    sent: bool,
    /// Its `stream.end` has come: later chunks belong to nothing.
    stream_ended: bool,
    /// Flow control of its chunks (see [`CallOptions::window`]).
    window: Option<Window>,
    /// Its timeout, when progress moves its deadline.
    renewed_by_progress: Option<u64>,
    /// Its request carried MCP's progress token.
    asked_progress: bool,
}

/// How many chunks of a call the other side may send ahead of the caller,
/// and how many the caller has taken since it last said so.
#[derive(Clone, Copy)]
struct Window {
    size: u32,
    consumed: u32,
}

pub struct Endpoint<V, H, W> {
    config: Config,
    dispatcher: Dispatcher<V, H>,
    calls: PendingTable<Call<W>>,
    queue: Vec<Queued<V>>,
    events: VecDeque<Event<V, H, W>>,
    /// What the other side accepts, once it has shown it is there.
    peer: Option<Capabilities>,
    /// A message went out alone this turn: the next one waits for the batch.
    sent_alone: bool,
    flush_scheduled: bool,
    /// Some call waits for a clock reading.
    awaiting_reading: bool,
    /// No call is due before this (it may be stale: earlier than needed).
    earliest: Option<Deadline>,
    /// What ends calls this side serves if their handlers have not: an
    /// asynchronous check of their params, their callers' deadlines (few at
    /// any time: a list is enough).
    bounds: Vec<serving::Bound>,
    /// The clock's reading as the message being received arrived (see
    /// [`Endpoint::arrived_at`]).
    arrival: Option<Deadline>,
    destroyed: bool,
    /// The name this side's hello gives for its presence.
    presence: Option<String>,
    /// The other side's presence name last reported with [`Event::WatchPeer`].
    watched: Option<String>,
    /// MCP: the progress tokens of the calls this side serves that carried one.
    progress_tokens: Vec<(CallId, V)>,
    /// A resumable session, when the host set one up (see [`SessionSetup`]).
    session: Option<Session<V>>,
    /// A connection is open (see [`Endpoint::connecting`]).
    connected: bool,
    /// jrpc-oo: this side's methods are announced at the end of the turn.
    components_due: bool,
    #[cfg(feature = "references")]
    references: references::References<V>,
}

impl<V: Value + PartialEq, H: Clone, W: Clone> Endpoint<V, H, W> {
    /// A new endpoint; with a handshake, its hello is the first event.
    pub fn new(config: Config) -> Self {
        Self::with_presence(config, None)
    }

    /// A new endpoint whose hello names its `presence`: something the host
    /// holds while this side lives (a Web Lock), by which the other side's
    /// host can tell when it has gone, however it went.
    pub fn with_presence(config: Config, presence: Option<String>) -> Self {
        Self::with_session(config, presence, None)
    }

    /// A new endpoint that takes part in resumable sessions as `session`
    /// says: a client asks for one in its hello (so it should say hello), a
    /// server grants one to a hello that asks.
    pub fn with_session(config: Config, presence: Option<String>, session: Option<SessionSetup>) -> Self {
        let mut dispatcher = Dispatcher::new(config.roles);
        dispatcher.set_batch_policy(config.batch_policy);
        dispatcher.set_null_params_absent(config.null_params_absent);
        dispatcher.set_cancellation(config.cancellation);
        dispatcher.set_max_in_flight(config.limits.max_in_flight);
        let mut endpoint = Endpoint {
            config,
            dispatcher,
            calls: PendingTable::new(),
            queue: Vec::new(),
            events: VecDeque::new(),
            peer: None,
            sent_alone: false,
            flush_scheduled: false,
            awaiting_reading: false,
            earliest: None,
            bounds: Vec::new(),
            arrival: None,
            destroyed: false,
            presence,
            watched: None,
            progress_tokens: Vec::new(),
            session: session.map(Session::new),
            connected: true,
            components_due: false,
            #[cfg(feature = "references")]
            references: references::References::default(),
        };
        #[cfg(feature = "references")]
        endpoint.dispatcher.set_references(endpoint.offers_references());
        endpoint.dispatcher.set_lists_components(config.dialect == Dialect::JrpcOo);
        if config.handshake != Handshake::Off {
            let hello = endpoint.session.as_mut().and_then(Session::hello);
            endpoint.transmit(Transmit::Single(endpoint.ready(false, hello)));
        }
        endpoint
    }

    /// The next thing to do, in order.
    pub fn poll(&mut self) -> Option<Event<V, H, W>> {
        self.events.pop_front()
    }

    /// The next event, if it is the last one queued and `wanted` says so of
    /// it: how a host that carries out the common case itself, rather than
    /// through its general loop, takes it.
    pub fn poll_last_if(&mut self, wanted: impl FnOnce(&Event<V, H, W>) -> bool) -> Option<Event<V, H, W>> {
        // `front`, not an index: no bound check and its panic site.
        match self.events.len() == 1 && self.events.front().is_some_and(wanted) {
            true => self.events.pop_front(),
            false => None,
        }
    }

    /// Which timers the host should have armed. O(1): safe to ask after every input.
    pub fn poll_timeout(&self) -> Timeouts {
        let expires = self.session.as_ref().and_then(Session::expires);
        let deadline = match (self.earliest, expires) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        Timeouts { reading: self.awaiting_reading, deadline }
    }

    /// Registers (or replaces) the handler of a method.
    pub fn set_method(&mut self, name: &str, handler: H) {
        self.dispatcher.set_method(name, handler);
        self.components_changed();
    }

    /// Registers (or replaces) the handler of a notification.
    pub fn set_notification(&mut self, name: &str, handler: H) {
        self.dispatcher.set_notification(name, handler);
    }

    pub fn method_names(&self) -> impl Iterator<Item = &str> {
        self.dispatcher.method_names()
    }

    /// Calls of this side's still waiting.
    pub fn pending(&self) -> usize {
        self.calls.len()
    }

    /// Whether a call of this side's waits under `id` (a request the
    /// endpoint makes of its own, as jrpc-oo's handshake, is none).
    pub fn is_waiting(&self, id: u64) -> bool {
        self.calls.contains(id)
    }

    pub fn is_destroyed(&self) -> bool {
        self.destroyed
    }

    /// Whether a call of the other side's is being served (its answer, or
    /// its batch's, has not gone yet).
    pub fn is_serving(&self) -> bool {
        !self.dispatcher.is_clean()
    }

    /// The id the caller gave call `call` (on the wire), while this side serves it.
    pub fn served_id(&self, call: CallId) -> Option<&Id<V>> {
        self.dispatcher.id_of(call)
    }

    /// Nothing is left in any table: no call waiting, none being served, no
    /// batch half-answered, nothing queued (but notifications held for a
    /// handshake the other side has not answered). A leak check.
    pub fn is_idle(&self) -> bool {
        self.calls.is_empty()
            && self.bounds.is_empty()
            && self.session.as_ref().is_none_or(|session| session.kept() == 0)
            && self.dispatcher.is_clean()
            && (self.queue.is_empty() || self.holding())
            && self.references_idle()
    }

    // ---- this side's calls -------------------------------------------------

    /// Makes a call; returns its id (`None` once destroyed, or when its
    /// params are neither an array nor an object: the call has then settled
    /// with [`Failure::Destroyed`], or with `-32602` and nothing sent). `now`
    /// is read only for a timeout shorter than [`COARSE_FROM_MS`].
    pub fn request(
        &mut self,
        method: V,
        params: Option<V>,
        waiter: W,
        timeout_ms: Option<u64>,
        now: impl FnOnce() -> Deadline,
    ) -> Option<u64> {
        let options = CallOptions { timeout_ms, reset_on_progress: true, ..CallOptions::default() };
        self.request_with(method, params, waiter, options, now)
    }

    /// [`Endpoint::request`], as `options` say.
    ///
    /// - `window`, for a call whose chunks the caller takes at its own pace:
    ///   toward a peer whose hello offered flow control (`streamCredit`) and
    ///   batches, the request and a `stream.credit` of `window` chunks go out
    ///   together, so its handler knows the bound before it runs; the caller
    ///   then reports what it takes with [`Endpoint::consumed`]. Toward any
    ///   other peer, a plain request.
    /// - `progress`: in MCP's dialect, the request's params carry
    ///   `_meta.progressToken` (its id), so the server reports progress.
    /// - `reset_on_progress`: each progress ([`Event::Progress`]) moves the
    ///   deadline to `timeout_ms` after it; `max_total_ms` bounds the call
    ///   whatever comes.
    pub fn request_with(
        &mut self,
        method: V,
        params: Option<V>,
        waiter: W,
        options: CallOptions,
        now: impl FnOnce() -> Deadline,
    ) -> Option<u64> {
        let kind = params.as_ref().map(Value::kind);
        match self.request_of_kind(
            method,
            params,
            None,
            #[cfg(feature = "references")]
            None,
            kind,
            waiter,
            options,
            now,
        ) {
            Ok(id) => Some(id),
            Err((waiter, outcome)) => {
                self.events.push_back(Event::Settled { id: 0, waiter, outcome });
                None
            }
        }
    }

    /// [`Endpoint::request_with`] for a host that knows the params' kind
    /// (`None`: no params) and settles a refused call itself: its outcome
    /// comes back with the waiter, and no event is queued for it. `meta`:
    /// its metadata ([`crate::core::META`]), which goes to a peer that offered
    /// it. With references, `refs` go beside the params (see [`Endpoint::export`]).
    #[allow(clippy::too_many_arguments)]
    pub fn request_of_kind(
        &mut self,
        method: V,
        params: Option<V>,
        meta: Option<V>,
        #[cfg(feature = "references")] refs: Option<V>,
        kind: Option<Kind>,
        waiter: W,
        options: CallOptions,
        now: impl FnOnce() -> Deadline,
    ) -> Result<u64, (W, Outcome<V>)> {
        if self.destroyed {
            return Err((waiter, Outcome::Failed(Failure::Destroyed)));
        }
        if let Err(refused) = structured(kind) {
            return Err((waiter, Outcome::Error(refused)));
        }
        let params = self.outgoing_params(&method, params);
        // One clock reading at most, for the shortest deadline that needs one.
        let (timeout_ms, max_total_ms) =
            (options.timeout_ms.filter(|&ms| ms > 0), options.max_total_ms.filter(|&ms| ms > 0));
        let shortest = match (timeout_ms, max_total_ms) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        let now = shortest.filter(|&ms| ms < COARSE_FROM_MS).map(|_| now());
        let (timeout, cap) = (timeout_ms.map(|ms| self.due_in(ms, now)), max_total_ms.map(|ms| self.due_in(ms, now)));
        let offered = self.peer.is_some_and(|peer| peer.stream_credit) && self.batches_out();
        let window = options.window.filter(|_| offered && !self.holding()).map(|size| size.clamp(1, MAX_CREDIT));
        let call = Call {
            waiter,
            sent: false,
            stream_ended: false,
            window: window.map(|size| Window { size, consumed: 0 }),
            renewed_by_progress: options.timeout_ms.filter(|&ms| ms > 0 && options.reset_on_progress),
            asked_progress: options.progress && self.config.dialect == Dialect::Mcp,
        };
        let asked_progress = call.asked_progress;
        let id = self.calls.insert_capped(call, timeout, cap);
        let params = match asked_progress {
            true => with_progress_token(params, id),
            false => params,
        };
        let request = Message::Request {
            id,
            method,
            params,
            meta,
            #[cfg(feature = "references")]
            refs,
        };
        // References toward a peer not heard yet wait for its hello: it may not take them.
        #[cfg(feature = "references")]
        if self.peer_refers().is_none() && matches!(request, Message::Request { refs: Some(_), .. }) {
            self.wait_for_hello(request, id);
            return Ok(id);
        }
        match window {
            // One batch at the end of the turn: the request and its credit cross together.
            Some(credit) => {
                self.queue.push(Queued { message: request, call: Some(id) });
                self.queue.push(Queued { message: Message::Credit { id, credit }, call: None });
                self.schedule_flush();
            }
            None => self.send(request, Some(id)),
        }
        Ok(id)
    }

    /// Sends a notification.
    /// Sends a notification, unless its params are neither an array nor an
    /// object (then nothing goes, and the error says why).
    pub fn notify(&mut self, method: V, params: Option<V>) -> Result<(), ErrorObject<V>> {
        structured(params.as_ref().map(Value::kind))?;
        if !self.destroyed {
            let params = self.outgoing_params(&method, params);
            self.send(
                Message::Notification {
                    method,
                    params,
                    #[cfg(feature = "references")]
                    refs: None,
                },
                None,
            );
        }
        Ok(())
    }

    /// Cancels a call: it settles with [`Failure::Cancelled`], and the other
    /// side is told (`$/cancelRequest`, or MCP's `notifications/cancelled`)
    /// if the call had reached it.
    /// Returns whether the call was still waiting.
    pub fn cancel(&mut self, id: u64) -> bool {
        let Some(call) = self.calls.remove(id) else { return false };
        if call.sent {
            let convention = self.dispatcher.cancellation();
            self.send(Message::Cancel { id, convention }, None);
        } else {
            self.unqueue(Some(id));
        }
        self.events.push_back(Event::Settled { id, waiter: call.waiter, outcome: Outcome::Failed(Failure::Cancelled) });
        true
    }

    /// A clock reading, when a timer fires: calls waiting for a reading get
    /// their deadline, and every call due by `now` settles with a timeout.
    pub fn handle_timeout(&mut self, now: Deadline) {
        if self.session.as_mut().is_some_and(|session| session.expired(now)) {
            self.session_over();
        }
        self.awaiting_reading = false;
        let (expired, next) = self.calls.expire(now);
        self.earliest = next;
        self.expire_bounds(now);
        for (id, call) in expired {
            if !call.sent {
                self.unqueue(Some(id));
            }
            let outcome = Outcome::Failed(Failure::Timeout { sent: call.sent });
            self.events.push_back(Event::Settled { id, waiter: call.waiter, outcome });
        }
    }

    /// Takes the request of the call `call` (`None`: of every call) off the
    /// queue; notifications stay. One predicate for all three uses: each
    /// closure of its own would link another copy of `retain`.
    #[cfg(not(feature = "references"))]
    fn unqueue(&mut self, call: Option<u64>) {
        self.queue.retain(|queued| match (queued.call, call) {
            (Some(queued), Some(call)) => queued != call,
            (Some(_), None) => false,
            (None, _) => true,
        });
    }

    /// As without references, from the queue and from the calls waiting for
    /// the peer's hello; a request that never leaves gives back what it introduced.
    #[cfg(feature = "references")]
    fn unqueue(&mut self, call: Option<u64>) {
        let mut given = Vec::new();
        self.queue.retain(|queued| {
            let keep = unqueued(queued.call, call);
            if let (false, Message::Request { refs: Some(refs), .. }) = (keep, &queued.message) {
                given.push(refs.clone());
            }
            keep
        });
        // And from the calls waiting for the peer's hello.
        for queued in core::mem::take(&mut self.references.waiting) {
            match (unqueued(queued.call, call), queued.message) {
                (false, Message::Request { refs, .. }) => given.extend(refs),
                (_, message) => self.references.waiting.push(Queued { message, call: queued.call }),
            }
        }
        for refs in given {
            self.give_back(Some(refs));
        }
    }

    /// When something `ms` from now is due, `now` being a reading of the
    /// clock if the host gave one: arms what it needs as it is made, the
    /// deadline timer (a short time, read), or a reading.
    fn due_in(&mut self, ms: u64, now: Option<Deadline>) -> Due {
        match now {
            Some(now) if ms < COARSE_FROM_MS => {
                let at = now.saturating_add(ms);
                self.wake_by(at);
                Due::At(at)
            }
            _ => {
                self.awaiting_reading = true;
                Due::AfterNextReading(ms)
            }
        }
    }

    /// The host's deadline timer must fire by `at`.
    fn wake_by(&mut self, at: Deadline) {
        self.earliest = Some(self.earliest.map_or(at, |earliest| earliest.min(at)));
    }

    /// The transport got no response to the calls `ids` (see
    /// [`Undelivered`]). What its reply held (`reply`: an error status's
    /// body, parsed) still answers any of them it has a response to; nothing
    /// else in it is read. Then each call still waiting settles with the
    /// error `why` names, `message` (what happened, in the transport's
    /// words) and `data`. Calls already answered, or unknown ids, are left
    /// alone. Returns the calls that failed so.
    pub fn undelivered(
        &mut self,
        ids: &[u64],
        reply: &[V],
        why: Undelivered,
        message: &str,
        data: Option<V>,
    ) -> Vec<u64> {
        for message in reply {
            if self.answers(Envelope::read(message), Framing::Text).is_some_and(|id| ids.contains(&id)) {
                self.receive(message, Framing::Text);
            }
        }
        let code = match why {
            Undelivered::Failed if self.config.dialect == Dialect::Mcp => code::MCP_SERVER_ERROR,
            Undelivered::Failed => code::HTTP_ERROR,
            Undelivered::NotJson => code::PARSE_ERROR,
            Undelivered::SessionExpired => code::SESSION_EXPIRED,
        };
        let mut failed = Vec::new();
        for &id in ids {
            if let Some(call) = self.calls.remove(id) {
                let error = ErrorObject { code, message: message.into(), data: data.clone() };
                self.events.push_back(Event::Settled { id, waiter: call.waiter, outcome: Outcome::Error(error) });
                failed.push(id);
            }
        }
        failed
    }

    /// The key of one of this side's calls, from the id of an answer or chunk
    /// (`1` and `"1"` are different ids: a string never matches).
    fn own_call(&self, id: &V) -> Option<u64> {
        id.as_number().and_then(PendingTable::<Call<W>>::key_of)
    }
}

#[cfg(not(feature = "references"))]
impl<V: Value + PartialEq, H: Clone, W: Clone> Endpoint<V, H, W> {
    /// No references without the feature: nothing is ever held.
    fn references_idle(&self) -> bool {
        true
    }
}

/// Whether a queued message (of the call `queued`, if a request) stays when
/// the request of `call` (`None`: of every call) is taken off the queue.
#[cfg(feature = "references")]
fn unqueued(queued: Option<u64>, call: Option<u64>) -> bool {
    match (queued, call) {
        (Some(queued), Some(call)) => queued != call,
        (Some(_), None) => false,
        (None, _) => true,
    }
}

/// The same for an answer's id, whose number came with it.
fn own_call_of<V>(id: &Id<V>) -> Option<u64> {
    id.as_number().and_then(PendingTable::<()>::key_of)
}

/// MCP's params with `_meta.progressToken` set to the request's `id` (the
/// caller's other `_meta` members kept): the server may report progress.
fn with_progress_token<V: Value>(params: Option<V>, id: u64) -> Option<V> {
    let token = V::number(id as f64);
    match params {
        Some(params) if params.kind() == Kind::Object => {
            let meta = match params.member("_meta") {
                Some(meta) if meta.kind() == Kind::Object => meta.with_member("progressToken", token),
                _ => V::object_of("progressToken", token),
            };
            Some(params.with_member("_meta", meta))
        }
        // Positional params have no place for it: no progress then.
        Some(params) => Some(params),
        None => Some(V::object_of("_meta", V::object_of("progressToken", token))),
    }
}

/// The spec's rule for the params this side sends: "a Structured value", an
/// array or an object, or none at all.
fn structured<V: Value>(params: Option<Kind>) -> Result<(), ErrorObject<V>> {
    match params {
        None | Some(Kind::Array | Kind::Object) => Ok(()),
        Some(_) => Err(ErrorObject::new(code::INVALID_PARAMS, "params must be an array or an object")),
    }
}
