//! Functions and objects by reference, as one connection counts them: the
//! exports the peer holds and the imports this side holds, each by
//! introductions not yet released, the rules of offering them, and the
//! answers to calls of references that are not live.

use super::*;

use super::outgoing::Queued;
use crate::core::table::Table;

/// The most pairs one `$/release` carries; more go as several.
const RELEASES_PER_MESSAGE: usize = 4_096;

/// One connection's references, both ways.
pub(super) struct References<V> {
    /// This side's targets the peer holds: id → introductions not released.
    exports: Table<u32, u32>,
    /// The last export id given (ids start at 1 and are never reused, so a
    /// late call or release of an old id finds nothing).
    last: u32,
    /// The peer's targets this side holds stubs of: id → arrivals not released.
    imports: Table<u32, u32>,
    /// The sum of `imports`: the bound counts stubs on the holder's side.
    stubs: usize,
    /// Releases to send at the end of the turn, as one `$/release`.
    releasing: Vec<(u32, u32)>,
    /// The other side said hello on this connection.
    hello_heard: bool,
    /// Calls with references made before the other side was heard: they go
    /// once its hello offers references, and fail if it does not.
    pub(super) waiting: Vec<Queued<V>>,
    /// This side said hello to have references answered for (with no
    /// handshake of its own, it asks once per connection).
    asked: bool,
}

impl<V> Default for References<V> {
    fn default() -> Self {
        References {
            exports: Table::default(),
            last: 0,
            imports: Table::default(),
            stubs: 0,
            releasing: Vec::new(),
            hello_heard: false,
            waiting: Vec::new(),
            asked: false,
        }
    }
}

/// The references one message brings, as `Endpoint::arriving` read them.
pub(super) struct Arriving<V> {
    /// The message's `refs`, for the host.
    refs: V,
    /// The sender's ids it introduces, once per arrival.
    fresh: Vec<u32>,
    /// Why the message is refused, if it is.
    refused: Option<ErrorObject<V>>,
}

impl<V> References<V> {
    fn is_empty(&self) -> bool {
        self.exports.is_empty() && self.imports.is_empty() && self.releasing.is_empty() && self.waiting.is_empty()
    }
}

impl<V: Value + PartialEq, H: Clone, W: Clone> Endpoint<V, H, W> {
    /// This side offers references: a Peer (it must both call and serve
    /// them) in the plain dialect, configured to.
    pub(super) fn offers_references(&self) -> bool {
        self.config.references && self.config.roles == Roles::PEER && self.config.dialect == Dialect::Plain
    }

    /// References go both ways on this connection: this side offers them and the peer's hello did.
    pub fn takes_references(&self) -> bool {
        !self.destroyed && self.offers_references() && self.peer.is_some_and(|peer| peer.references)
    }

    /// Whether the peer's hello offered references (`None`: no hello that
    /// says anything has come: the peer is not heard yet, or was only seen).
    pub(super) fn peer_refers(&self) -> Option<bool> {
        self.peer.filter(|peer| *peer != Capabilities::NONE).map(|peer| peer.references)
    }

    /// A call may carry references: toward a peer that offered them, or
    /// one not heard yet (the call then waits for its hello).
    fn may_refer(&self) -> bool {
        !self.destroyed && self.offers_references() && self.peer_refers() != Some(false)
    }

    /// How many of this side's targets the peer holds (export entries), and
    /// how many stubs of the peer's this side holds. What the peer was never
    /// sent it does not hold: an export whose every introduction is in a
    /// call still waiting for the peer's hello is not counted.
    pub fn references_held(&self) -> (usize, usize) {
        let refs = &self.references;
        let mut waiting: Vec<u32> = Vec::new();
        for queued in &refs.waiting {
            if let Message::Request { refs: Some(list), .. } = &queued.message {
                // Positive ids only: a stub passed back introduced nothing.
                waiting.extend(list.elements().iter().filter_map(|entry| entry.elements().first().and_then(whole)));
            }
        }
        let sent =
            |id: &u32, introductions: &u32| waiting.iter().filter(|w| *w == id).count() < *introductions as usize;
        (refs.exports.iter().filter(|(id, introductions)| sent(id, introductions)).count(), refs.stubs)
    }

    pub(super) fn references_idle(&self) -> bool {
        self.references.is_empty()
    }

    /// Before a message with references is made: `new` targets are
    /// introduced for the first time, `again` (export ids) once more, and
    /// `back` (the peer's own, as import ids) are passed back. Returns the
    /// first of the `new` ids, which follow it. Refused, with nothing
    /// counted: toward a peer that does not take references (`-32602`),
    /// past [`Limits::max_references`] (`-32090`), or naming an id that is
    /// not live (`-32091`).
    pub fn export(&mut self, new: u32, again: &[u32], back: &[u32]) -> Result<u32, ErrorObject<V>> {
        if !self.may_refer() {
            return Err(not_taken(code::INVALID_PARAMS, "params"));
        }
        let most = self.config.limits.max_references;
        let refs = &mut self.references;
        if let Some(&id) = back.iter().find(|id| !refs.imports.contains_key(*id)) {
            return Err(unknown_held(id));
        }
        if let Some(&id) = again.iter().find(|id| !refs.exports.contains_key(*id)) {
            return Err(unknown_reference(id, refs.last));
        }
        let first = refs.last.wrapping_add(1);
        let last = refs.last.checked_add(new).filter(|_| refs.exports.len().saturating_add(new as usize) <= most);
        let Some(last) = last else {
            let mut message = String::from("Too many references: the other side holds ");
            decimal(refs.exports.len().min(u32::MAX as usize) as u32, &mut message);
            message.push_str(" of this side's; it must release some");
            return Err(ErrorObject::new(code::TOO_MANY_REFERENCES, message));
        };
        for id in first..=last {
            refs.exports.insert(id, 1);
        }
        for id in again {
            if let Some(count) = refs.exports.get_mut(id) {
                *count = count.saturating_add(1);
            }
        }
        refs.last = last;
        Ok(first)
    }

    /// The host dropped `count` stubs of the peer's reference `id`: the
    /// peer hears of it at the end of the turn, in one `$/release`. More
    /// than this side holds releases what it holds.
    pub fn release(&mut self, id: u32, count: u32) {
        if self.destroyed {
            return;
        }
        let refs = &mut self.references;
        let Some(held) = refs.imports.get_mut(&id) else { return };
        let count = count.min(*held);
        *held -= count;
        if *held == 0 {
            refs.imports.remove(&id);
        }
        if count > 0 {
            refs.stubs = refs.stubs.saturating_sub(count as usize);
            refs.releasing.push((id, count));
            self.schedule_flush();
        }
    }

    /// The connection's references are gone, both ways (it closed, the
    /// endpoint was destroyed, its session ended, the other side is a new
    /// instance): both tables empty, and the host hears of it once. Ids go
    /// on from where they were, so an old id never names a new target.
    pub(super) fn drop_references(&mut self) {
        if !self.offers_references() {
            return;
        }
        let refs = &mut self.references;
        refs.exports.clear();
        refs.imports.clear();
        refs.stubs = 0;
        refs.releasing.clear();
        refs.waiting.clear();
        refs.hello_heard = false;
        refs.asked = false;
        self.events.push_back(Event::References(ReferenceEvent::Dropped));
    }

    /// A call with references toward a peer not heard yet: it waits for
    /// the peer's hello. Without a handshake of its own, this side says
    /// hello now (once per connection), since a Peer answers one.
    pub(super) fn wait_for_hello(&mut self, request: Message<V>, call: u64) {
        self.references.waiting.push(Queued { message: request, call: Some(call) });
        if self.config.handshake == Handshake::Off && !core::mem::replace(&mut self.references.asked, true) {
            self.transmit(Transmit::Single(self.ready(false, None)));
        }
    }

    /// The peer is heard: the calls that waited for it go if it takes
    /// references, and fail `-32602` otherwise, giving back what they introduced.
    pub(super) fn send_waiting(&mut self) {
        let Some(refers) = self.peer_refers() else { return };
        for queued in core::mem::take(&mut self.references.waiting) {
            match (refers && self.takes_references(), queued.message) {
                (true, message) => self.send(message, queued.call),
                (false, Message::Request { id, refs, .. }) => {
                    self.give_back(refs);
                    if let Some(call) = self.calls.remove(id) {
                        let outcome = Outcome::Error(not_taken(code::INVALID_PARAMS, "params"));
                        self.events.push_back(Event::Settled { id, waiter: call.waiter, outcome });
                    }
                }
                (false, _) => {}
            }
        }
    }

    /// The other side's hello (not an answer): a second one on the same
    /// connection that resumes nothing comes from a new instance (a frame
    /// that reloaded), which holds none of the old references.
    pub(super) fn hello_heard(&mut self, resumed: bool) {
        if core::mem::replace(&mut self.references.hello_heard, true) && !resumed {
            self.drop_references();
        }
    }

    /// A message that never left (cancelled or timed out while queued,
    /// refused by the transport) gives back the introductions its `refs`
    /// made; exports that reach zero are freed.
    pub(super) fn give_back(&mut self, refs: Option<V>) {
        let Some(refs) = refs else { return };
        // Positive ids only: a stub passed back introduced nothing.
        let given: Vec<(u32, u32)> = refs
            .elements()
            .iter()
            .filter_map(|entry| entry.elements().first().and_then(whole))
            .map(|id| (id, 1))
            .collect();
        self.take_introductions(given);
    }

    /// The end of a turn: this turn's releases go, as few messages as may carry them.
    pub(super) fn send_releases(&mut self) {
        let releasing = core::mem::take(&mut self.references.releasing);
        for refs in releasing.chunks(RELEASES_PER_MESSAGE) {
            self.send(Message::Release { refs: refs.to_vec() }, None);
        }
    }

    /// `$/release` from the other side: each `[id, count]` takes `count`
    /// introductions off export `id` (clamped: never an error, never below
    /// zero); the exports that reach zero are freed, and the host hears which.
    pub(super) fn released(&mut self, params: Option<V>) {
        let pairs = params.and_then(|params| params.member("refs")).map_or_else(Vec::new, |refs| refs.elements());
        let taken: Vec<(u32, u32)> = pairs
            .iter()
            .filter_map(|pair| match pair.elements().as_slice() {
                [id, count] => Some((whole(id)?, whole(count)?)),
                _ => None,
            })
            .collect();
        self.take_introductions(taken);
    }

    /// Takes `count` introductions off each export `id` (clamped: never below
    /// zero, an unknown id ignored); the exports that reach zero are freed,
    /// and the host hears which.
    fn take_introductions(&mut self, taken: Vec<(u32, u32)>) {
        let mut freed = Vec::new();
        for (id, count) in taken {
            let Some(held) = self.references.exports.get_mut(&id) else { continue };
            *held = held.saturating_sub(count);
            if *held == 0 {
                self.references.exports.remove(&id);
                freed.push(id);
            }
        }
        if !freed.is_empty() {
            self.events.push_back(Event::References(ReferenceEvent::Freed(freed)));
        }
    }

    /// A call of `$/ref/<reference>[.<member>]` is in flight as `call`: the
    /// host runs it if the export is live; otherwise it is answered `-32091`
    /// (and what it brought is released).
    pub(super) fn call_reference(
        &mut self,
        call: CallId,
        reference: u32,
        member: Option<String>,
        params: Option<V>,
        arriving: &mut Option<Arriving<V>>,
    ) {
        let answer = match self.references.exports.contains_key(&reference) {
            true => self.deliver(arriving),
            false => Err(unknown_reference(reference, self.references.last)),
        };
        match answer {
            Ok(()) => {
                let params = self.incoming_params(params);
                self.events.push_back(Event::References(ReferenceEvent::Invoke { call, reference, member, params }));
            }
            Err(refused) => self.complete(call, Err(refused)),
        }
    }

    /// The references a message brings, checked before its action is
    /// carried out: `[[id, path], …]`, each `id` a non-zero integer (a stub
    /// of the sender's when positive, this side's own export `-id` when
    /// negative) and each path an array. A message that breaks the rules is
    /// refused: `-32600` if malformed, `-32091` passing back an export that
    /// is not live, `-32090` bringing more stubs than this side takes.
    pub(super) fn arriving(&self, refs: V) -> Arriving<V> {
        let entries = refs.elements();
        let mut fresh = Vec::new();
        let mut malformed = refs.kind() != Kind::Array;
        let mut dead = None;
        for entry in &entries {
            let pair = entry.elements();
            // The id's sign says whose it is; its magnitude must be a whole `u32` from 1.
            let signed = pair.first().and_then(Value::as_number).map(|n| (n > 0.0, if n < 0.0 { -n } else { n }));
            let id = signed.and_then(|(theirs, magnitude)| Some((theirs, whole_number(magnitude)?)));
            let path = pair.get(1).is_some_and(|path| path.kind() == Kind::Array);
            match id {
                Some((theirs, id)) if pair.len() == 2 && path => match theirs {
                    true => fresh.push(id),
                    false if self.references.exports.contains_key(&id) => {}
                    false => dead = dead.or(Some(id)),
                },
                _ => malformed = true,
            }
        }
        let refs_held = &self.references;
        let refused = if malformed {
            Some(ErrorObject::new(code::INVALID_REQUEST, "Invalid Request: malformed refs"))
        } else if let Some(id) = dead {
            Some(unknown_reference(id, refs_held.last))
        } else if refs_held.stubs.saturating_add(fresh.len()) > self.config.limits.max_references {
            let mut message = String::from("Too many references: this side holds ");
            decimal(refs_held.stubs.min(u32::MAX as usize) as u32, &mut message);
            message.push_str(" stubs of the other side's; it must release some");
            Some(ErrorObject::new(code::TOO_MANY_REFERENCES, message))
        } else {
            None
        };
        Arriving { refs, fresh, refused }
    }

    /// The payload the references came with is delivered: they are counted
    /// as held, and the host hears of them just before the payload. Refused
    /// references are released instead, and the refusal comes back.
    pub(super) fn deliver(&mut self, arriving: &mut Option<Arriving<V>>) -> Result<(), ErrorObject<V>> {
        let Some(arrived) = arriving.take() else { return Ok(()) };
        if let Some(refused) = arrived.refused {
            self.release_arrivals(Arriving { refused: None, ..arrived });
            return Err(refused);
        }
        let refs = &mut self.references;
        for &id in &arrived.fresh {
            let held = refs.imports.get_or_insert_with(id, || 0);
            *held = held.saturating_add(1);
        }
        refs.stubs += arrived.fresh.len();
        self.events.push_back(Event::References(ReferenceEvent::Stubs(arrived.refs)));
        Ok(())
    }

    /// References nothing took go back to their owner at once.
    pub(super) fn release_arrivals(&mut self, arrived: Arriving<V>) {
        if arrived.fresh.is_empty() {
            return;
        }
        for id in arrived.fresh {
            match self.references.releasing.last_mut() {
                Some((last, count)) if *last == id => *count = count.saturating_add(1),
                _ => self.references.releasing.push((id, 1)),
            }
        }
        self.schedule_flush();
    }

    /// [`Endpoint::request_with`], the request carrying `refs` (made after
    /// [`Endpoint::export`]) beside its params.
    pub fn request_with_refs(
        &mut self,
        method: V,
        params: Option<V>,
        refs: V,
        waiter: W,
        options: CallOptions,
        now: impl FnOnce() -> Deadline,
    ) -> Option<u64> {
        // Once destroyed, the call fails as any call does.
        let made = match self.destroyed || self.may_refer() {
            true => {
                let kind = params.as_ref().map(Value::kind);
                self.request_of_kind(method, params, None, Some(refs), kind, waiter, options, now)
            }
            false => Err((waiter, Outcome::Error(not_taken(code::INVALID_PARAMS, "params")))),
        };
        match made {
            Ok(id) => Some(id),
            Err((waiter, outcome)) => {
                self.events.push_back(Event::Settled { id: 0, waiter, outcome });
                None
            }
        }
    }

    /// [`Endpoint::notify`], the notification carrying `refs` beside its params.
    /// Refused, it gives back what its `refs` introduced (nothing was sent).
    pub fn notify_with_refs(&mut self, method: V, params: Option<V>, refs: V) -> Result<(), ErrorObject<V>> {
        let refused = match self.takes_references() {
            false => Err(not_taken(code::INVALID_PARAMS, "params")),
            true => structured(params.as_ref().map(Value::kind)),
        };
        if let Err(refused) = refused {
            self.give_back(Some(refs));
            return Err(refused);
        }
        let params = self.outgoing_params(&method, params);
        self.send(Message::Notification { method, params, refs: Some(refs) }, None);
        Ok(())
    }

    /// [`Endpoint::complete`] with a result that holds references at `refs`.
    /// Toward a peer that does not take them, the caller gets `-32603` instead.
    pub fn complete_with_refs(&mut self, call: CallId, result: V, refs: V) {
        match self.takes_references() {
            true => {
                self.dispatcher.answer_with_refs(Some(refs));
                self.complete(call, Ok(result));
                // Taken by the answer, unless the call was answered already.
                self.dispatcher.answer_with_refs(None);
            }
            false => self.complete(call, Err(not_taken(code::INTERNAL_ERROR, "the result"))),
        }
    }
}

/// What a message with references toward a peer that does not take them gets.
fn not_taken<V>(code: i64, what: &str) -> ErrorObject<V> {
    let mut message = String::from(what);
    message.push_str(
        " carry references, which the other side does not take (not a wiggum-rpc Peer that offered them in $/ready)",
    );
    ErrorObject::new(code, message)
}

/// A call of export `id`, not live: released, or never sent (past the last
/// id given). `data` names it.
pub(super) fn unknown_reference<V: Value>(id: u32, last: u32) -> ErrorObject<V> {
    let mut message = String::from("Unknown reference: ");
    decimal(id, &mut message);
    message.push_str(match id <= last {
        true => " (released)",
        false => " (never sent on this connection)",
    });
    ErrorObject::new(code::UNKNOWN_REFERENCE, message).with_data(V::object_of("ref", V::number(f64::from(id))))
}

/// A stub passed back that this side does not hold (released, or never received).
fn unknown_held<V: Value>(id: u32) -> ErrorObject<V> {
    let mut message = String::from("Unknown reference: ");
    decimal(id, &mut message);
    message.push_str(" (no stub of it is held on this connection)");
    ErrorObject::new(code::UNKNOWN_REFERENCE, message)
}

/// A whole number from 1 that fits a `u32`.
fn whole<V: Value>(value: &V) -> Option<u32> {
    whole_number(value.as_number()?)
}

fn whole_number(n: f64) -> Option<u32> {
    (n >= 1.0 && n <= f64::from(u32::MAX) && f64::from(n as u32) == n).then_some(n as u32)
}

/// `n` in decimal digits, without the formatting machinery.
fn decimal(n: u32, into: &mut String) {
    if n >= 10 {
        decimal(n / 10, into);
    }
    into.push(char::from(b'0' + (n % 10) as u8));
}
