//! A server's session handed from one endpoint to another: a process that
//! leaves gives each client's session to a process that stays, which resumes
//! it when the client presents it there, by the same rules as at home (what
//! is kept is sent again once; what the client sent and this side did not
//! receive comes again). Only a session with nothing of its own running can
//! move: an answer still being made would be lost with its process.
//!
//! Between processes a handed session travels as JSON (`json::handed` on
//! the native side, the Node build's `Peer.handOff` in JS), its messages
//! as they go on the wire, each send a message object or a batch array:
//! `{"id", "grace", "maxKept", "sent", "received", "nextCall", "unacked":
//! [send, …], "held": [send, …]}`. The taking side keeps those messages as
//! they are (`Message::Kept`) and sends them again as they are.

use super::session::HandedSession;
use super::*;

/// Why a session cannot be handed off now.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HandOffRefused {
    /// No session granted here (a client's endpoint, or none asked).
    NoSession,
    /// A call of the other side's is being served, or a message of this
    /// side's waits to be sent: the host lets them finish first.
    Busy,
    /// The other side holds references to this side's objects, which stay here.
    References,
}

impl<V: Value + PartialEq, H: Clone, W: Clone> Endpoint<V, H, W> {
    /// Takes this server endpoint's session out, for another endpoint to
    /// resume ([`Endpoint::take_over`]). This side's own calls waiting on the
    /// other side fail with [`Failure::ConnectionClosed`] (their callers stay
    /// here); the endpoint keeps no session after, and its host closes the
    /// connection and destroys it.
    pub fn hand_off(&mut self) -> Result<HandedSession<V>, HandOffRefused> {
        if self.destroyed || self.session.as_ref().is_none_or(|session| session.id().is_none()) {
            return Err(HandOffRefused::NoSession);
        }
        if !self.dispatcher.is_clean() || !self.queue.is_empty() || !self.bounds.is_empty() {
            return Err(HandOffRefused::Busy);
        }
        if !self.references_idle() {
            return Err(HandOffRefused::References);
        }
        let next_call = self.calls.next_id();
        let handed =
            self.session.as_mut().and_then(|session| session.hand_off(next_call)).ok_or(HandOffRefused::NoSession)?;
        self.fail_all(Failure::ConnectionClosed);
        Ok(handed)
    }

    /// Makes `handed` this fresh server endpoint's session, its connection
    /// gone since `now`: a client whose hello presents it resumes it here.
    /// Returns whether it was taken (not by an endpoint that has a session
    /// going, nor a client's, nor when `handed` cannot be a session's).
    pub fn take_over(&mut self, handed: HandedSession<V>, now: Deadline) -> bool {
        let fresh = match &self.session {
            Some(session) => session.id().is_none() && !session.is_client(),
            None => false,
        };
        if self.destroyed || !fresh {
            return false;
        }
        let next_call = handed.next_call;
        match Session::taken_over(handed, now) {
            Some(session) => {
                self.calls.continue_from(next_call);
                self.session = Some(session);
                true
            }
            None => false,
        }
    }
}

/// A handed session's `unacked` or `held` as it crossed (`list`: an array
/// of sends, each a message object or a non-empty array of them), each
/// message kept as it is; `None` when `list` is not one.
#[cfg(feature = "handoff")]
pub fn kept_sends<V: Value>(list: &V) -> Option<Vec<Transmit<V>>> {
    if list.kind() != Kind::Array {
        return None;
    }
    let message = |one: V| (one.kind() == Kind::Object).then_some(Message::Kept(one));
    let mut sends = Vec::new();
    for send in list.elements() {
        sends.push(match send.kind() {
            Kind::Object => Transmit::Single(Message::Kept(send)),
            Kind::Array => {
                let batch: Option<Vec<Message<V>>> = send.elements().into_iter().map(message).collect();
                Transmit::Batch(batch.filter(|batch| !batch.is_empty())?)
            }
            _ => return None,
        });
    }
    Some(sends)
}
