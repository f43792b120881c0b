//! What the endpoint does with what it receives: a message, a batch read
//! member by member, text refused before parsing, the other side's presence;
//! the dispatcher's actions carried out (replies, handler calls, settled
//! calls, chunks, progress, the hello, a session's acknowledgements and its
//! replacement), and which of this side's calls a message answers.

use super::*;

impl<V: Value + PartialEq, H: Clone, W: Clone> Endpoint<V, H, W> {
    /// An incoming value, classified here (a batch, a message object, or
    /// anything else for the framing to judge).
    pub fn receive(&mut self, value: &V, framing: Framing) {
        if self.destroyed {
            return;
        }
        let kind = value.kind();
        let ours = framing == Framing::Text
            || kind == Kind::Array
            || (kind == Kind::Object && value.member("jsonrpc").is_some_and(|v| v.is_version_2()));
        let actions = self.dispatcher.receive_kind(value, kind, framing);
        // Read only from a peer both sides agreed references with: elsewhere
        // `refs` is the sender's own business, and a stranger never hears `$/release`.
        #[cfg(feature = "references")]
        let refs = (kind == Kind::Object && ours && self.takes_references()).then(|| value.member("refs")).flatten();
        self.received(
            ours,
            actions,
            #[cfg(feature = "references")]
            refs,
        );
        if kind == Kind::Array {
            // Toward a peer that takes split answers, what settled at once goes this turn.
            self.schedule_flush();
        }
    }

    /// Whether a batch of `len` members is one a host may read member by
    /// member, for [`Endpoint::receive_members`] (one refused for its size
    /// or for being a batch goes to [`Endpoint::receive`] whole).
    pub fn takes_batch(&self, len: usize) -> bool {
        !self.destroyed && self.dispatcher.takes_batch(len)
    }

    /// An incoming batch whose members' envelopes the host has read (`None`
    /// for a member that is not an object): what [`Endpoint::receive`] does
    /// with an array, without asking the array anything.
    pub fn receive_members(&mut self, members: Vec<Option<Envelope<V>>>) {
        if self.destroyed {
            return;
        }
        let actions = self.dispatcher.receive_members(members);
        self.received(
            true,
            actions,
            #[cfg(feature = "references")]
            None,
        );
        // Toward a peer that takes split answers, what settled at once goes this turn.
        self.schedule_flush();
    }

    /// An incoming message object whose envelope the host has read.
    pub fn receive_envelope(&mut self, envelope: Envelope<V>, framing: Framing) {
        if self.destroyed {
            return;
        }
        let ours = framing == Framing::Text || envelope.version_2;
        let actions = self.dispatcher.receive_envelope(envelope, framing);
        self.received(
            ours,
            actions,
            #[cfg(feature = "references")]
            None,
        );
    }

    /// [`Endpoint::receive_envelope`] for a message whose `refs` member the
    /// host read along with its envelope.
    #[cfg(feature = "references")]
    pub fn receive_envelope_with_refs(&mut self, envelope: Envelope<V>, refs: Option<V>, framing: Framing) {
        if self.destroyed {
            return;
        }
        let ours = framing == Framing::Text || envelope.version_2;
        let actions = self.dispatcher.receive_envelope(envelope, framing);
        self.received(ours, actions, refs.filter(|_| ours && self.takes_references()));
    }

    /// Text the host did not read as a message: not JSON, or past a limit
    /// it checks before parsing.
    pub fn receive_refused(&mut self, refusal: TextRefusal) {
        if !self.destroyed {
            let actions = self.dispatcher.receive_refused(refusal);
            self.received(
                true,
                actions,
                #[cfg(feature = "references")]
                None,
            );
        }
    }

    /// The transport knows the other side is there now (a frame that has
    /// loaded): calls held for it go, toward a peer not yet known to take more
    /// than the spec.
    pub fn peer_present(&mut self) {
        if !self.destroyed && self.peer.is_none() {
            self.peer_ready(Capabilities::NONE);
        }
    }

    /// What a message's `actions` say, carried out. `refs`: the references
    /// it brings, delivered with the payload its action delivers, released otherwise.
    fn received(&mut self, ours: bool, actions: Vec<Action<V, H>>, #[cfg(feature = "references")] refs: Option<V>) {
        #[cfg(feature = "references")]
        let mut arriving = refs.map(|refs| self.arriving(refs));
        // A message in means a new task: what this side sends next may go alone.
        self.sent_alone = false;
        let mut ack = None;
        if let Some(session) = &mut self.session {
            // A hello and an `$/ack` belong to the connection; the rest to the session.
            if !matches!(actions.as_slice(), [Action::Ready { .. }] | [Action::SessionAck { .. }]) {
                let answers = actions.iter().any(|action| matches!(action, Action::Settle { .. }));
                ack = session.incoming(answers);
            }
        }
        for action in actions {
            match action {
                Action::Send(reply) => self.reply(reply),
                Action::Call { call, handler, params, meta } => {
                    if self.config.dialect == Dialect::Mcp {
                        let token =
                            params.as_ref().and_then(|p| p.member("_meta")).and_then(|m| m.member("progressToken"));
                        if let Some(token) = token.filter(|t| matches!(t.kind(), Kind::String | Kind::Number)) {
                            self.progress_tokens.push((call, token));
                        }
                    }
                    #[cfg(feature = "references")]
                    if let Err(refused) = self.deliver(&mut arriving) {
                        self.complete(call, Err(refused));
                        continue;
                    }
                    let params = self.incoming_params(params);
                    let meta = meta.filter(|_| self.offers_meta());
                    if let Some(meta) = &meta {
                        self.bound_by_deadline(call, meta);
                    }
                    self.events.push_back(Event::Invoke { call, handler, params, meta })
                }
                Action::Notify { handler, params } => {
                    #[cfg(feature = "references")]
                    if self.deliver(&mut arriving).is_err() {
                        continue;
                    }
                    let params = self.incoming_params(params);
                    self.events.push_back(Event::Notify { handler, params })
                }
                Action::Unhandled { method } => self.events.push_back(Event::Unhandled { method }),
                Action::Settle { id, outcome } => {
                    let outcome = match outcome {
                        Ok(result) => Outcome::Result(result),
                        Err(error) => Outcome::Error(error),
                    };
                    if let Some((id, call)) = own_call_of(&id).and_then(|id| Some((id, self.calls.remove(id)?))) {
                        // References come with a result only.
                        #[cfg(feature = "references")]
                        let outcome = match outcome {
                            Outcome::Result(result) => match self.deliver(&mut arriving) {
                                Ok(()) => Outcome::Result(result),
                                Err(refused) => Outcome::Error(refused),
                            },
                            outcome => outcome,
                        };
                        self.events.push_back(Event::Settled { id, waiter: call.waiter, outcome });
                    }
                }
                Action::Cancel { call } => self.events.push_back(Event::Cancelled { call }),
                #[cfg(feature = "references")]
                Action::Release { params } => self.released(params),
                #[cfg(feature = "references")]
                Action::Refs(refs) => {
                    // A batch member's: what the one before it did not deliver goes back first.
                    if let Some(left) = arriving.take() {
                        self.release_arrivals(left);
                    }
                    arriving = refs.filter(|_| self.takes_references()).map(|refs| self.arriving(refs));
                }
                #[cfg(feature = "references")]
                Action::CallReference { call, reference, member, params } => {
                    self.call_reference(call, reference, member, params, &mut arriving)
                }
                Action::Credit { call, resumed } => {
                    if resumed {
                        self.events.push_back(Event::MayStream { call });
                    }
                }
                Action::Progress { id, value, handler } => {
                    // In MCP's dialect, progress belongs only to a call whose request carried a token.
                    let mcp = self.config.dialect == Dialect::Mcp;
                    let call = self.own_call(&id).and_then(|id| Some((id, self.calls.get_mut(id)?)));
                    let Some((id, call)) = call.filter(|(_, call)| !mcp || call.asked_progress) else {
                        // MCP's progress of a token that is not ours: the application's notification.
                        if let Some(handler) = handler {
                            self.events.push_back(Event::Notify { handler, params: Some(value) });
                        }
                        continue;
                    };
                    let (waiter, renewed) = (call.waiter.clone(), call.renewed_by_progress);
                    if let Some(timeout) = renewed {
                        // Measured from the next reading: never early, at most a tick late.
                        self.calls.set_due(id, Some(Due::AfterNextReading(timeout)));
                        self.awaiting_reading = true;
                    }
                    self.events.push_back(Event::Progress { id, waiter, value });
                }
                Action::Chunk { id, chunk } => {
                    let Some(id) = self.own_call(&id) else { continue };
                    match self.calls.get_mut(id) {
                        Some(call) if !call.stream_ended => {
                            let waiter = call.waiter.clone();
                            self.events.push_back(Event::Chunk { id, waiter, chunk });
                        }
                        _ => {}
                    }
                }
                Action::StreamEnd { id } => {
                    if let Some(call) = self.own_call(&id).and_then(|id| self.calls.get_mut(id)) {
                        call.stream_ended = true;
                    }
                }
                Action::SessionAck { received } => {
                    if let Some(session) = &mut self.session {
                        session.acknowledged(received);
                    }
                }
                Action::Ready { params } => {
                    let (ack, capabilities) = Capabilities::read(params.as_ref());
                    let answered = match &mut self.session {
                        Some(session) => session.ready(ack, SessionHello::read(params.as_ref())),
                        None => Answered::Nothing,
                    };
                    // A session resumed, or one replaced (its references already dropped), keeps them.
                    #[cfg(feature = "references")]
                    let kept = match &answered {
                        Answered::Resumed(_) | Answered::Replaced { .. } => true,
                        Answered::Answer(answer, _) => answer.resumed == Some(true),
                        _ => false,
                    };
                    let (answer, again) = match answered {
                        Answered::Answer(answer, again) => (Some(answer), again),
                        Answered::Lost(answer) => {
                            if !ack {
                                self.transmit(Transmit::Single(self.ready(true, answer)));
                            }
                            self.session_over();
                            continue;
                        }
                        Answered::Resumed(again) => (None, again),
                        Answered::Replaced { held } => {
                            self.replace_session(held);
                            (None, Vec::new())
                        }
                        Answered::Nothing => (None, Vec::new()),
                    };
                    #[cfg(feature = "references")]
                    if !ack {
                        self.hello_heard(kept);
                    }
                    if !ack {
                        self.transmit(Transmit::Single(self.ready(true, answer)));
                    }
                    // Sent before (counted, kept): straight to the host.
                    self.transmit_again(again);
                    if let Some(presence) = presence_of(params.as_ref()) {
                        if self.watched.as_ref() != Some(&presence) {
                            self.watched = Some(presence.clone());
                            self.events.push_back(Event::WatchPeer(presence));
                        }
                    }
                    self.peer_ready(capabilities);
                }
            }
        }
        // Nothing took them (no handler, too many calls, a late answer, …): released at once.
        #[cfg(feature = "references")]
        if let Some(arriving) = arriving {
            self.release_arrivals(arriving);
        }
        if ours && self.peer.is_none() {
            // Whatever it sent, the other side is there; what it accepts stays unknown.
            self.peer_ready(Capabilities::NONE);
        }
        if let Some(received) = ack {
            self.transmit(Transmit::Single(Message::Ack { received }));
        }
        // A reading belongs to the message it came with.
        self.arrival = None;
    }

    /// A client's session could not be resumed; a new one (or none) carries
    /// the connection. Calls whose request is among what was `held` (made
    /// while disconnected, never sent) go on it; every other call fails.
    /// What else was held (answers, chunks, cancels) belonged to the old one.
    fn replace_session(&mut self, held: Vec<Transmit<V>>) {
        let mut carried = Vec::new();
        for transmit in &held {
            for message in transmit.messages() {
                if let Message::Request { id, .. } = message {
                    #[cfg(feature = "references")]
                    if !carries_no_references(message) {
                        continue;
                    }
                    carried.push(*id);
                }
            }
        }
        self.fail_calls(&carried, Failure::ConnectionClosed);
        // The session presented is over, though a new one goes on: the host
        // hears of it as of any session that ends, never a silent gap.
        self.events.push_back(Event::SessionEnded);
        // The old session's references are gone: a message naming them would name nothing.
        #[cfg(feature = "references")]
        self.drop_references();
        // Sent as any message is: the new session (if any) numbers and keeps
        // them, and what was held fits the bound it kept before.
        #[cfg(not(feature = "references"))]
        let goes_on = |message: &Message<V>| matches!(message, Message::Request { .. } | Message::Notification { .. });
        #[cfg(feature = "references")]
        let goes_on = |message: &Message<V>| {
            matches!(message, Message::Request { .. } | Message::Notification { .. }) && carries_no_references(message)
        };
        for transmit in held {
            match transmit {
                Transmit::Single(message) if goes_on(&message) => self.transmit(Transmit::Single(message)),
                Transmit::Single(_) => {}
                Transmit::Batch(mut messages) => {
                    messages.retain(goes_on);
                    self.transmit_batch(&mut messages);
                }
            }
        }
    }

    /// Which of this side's calls a message answers, as this endpoint reads
    /// it (`None`: it answers none): for a host that reports the traffic, so
    /// that it never classifies a message itself.
    pub fn answers(&self, envelope: Envelope<V>, framing: Framing) -> Option<u64> {
        if !self.config.roles.client {
            return None;
        }
        match classify_envelope(envelope, framing) {
            Inbound::Response(Response { id: Some(id), .. }) | Inbound::InvalidResponse { id: Some(id), .. } => {
                own_call_of(&id)
            }
            _ => None,
        }
    }
}

/// Whether a call or notification has no `refs`.
#[cfg(feature = "references")]
fn carries_no_references<V>(message: &Message<V>) -> bool {
    !matches!(message, Message::Request { refs: Some(_), .. } | Message::Notification { refs: Some(_), .. })
}
