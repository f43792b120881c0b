//! The endpoint's sending half: the `$/ready` handshake, the queue of a
//! turn's messages, and when they go out alone or as one batch.

use super::super::dispatch::{BatchPolicy, BatchReplies, Outgoing};
use super::super::error::{code, ErrorObject};
use super::super::message::Response;
use super::super::value::Value;
use super::super::wire::{Capabilities, Message, SessionHello, Transmit};
use super::{Batching, Dialect, Endpoint, Event, Handshake, Limits};
use crate::prelude::*;

/// A message waiting for the end of the turn, or for the handshake.
pub(super) struct Queued<V> {
    pub(super) message: Message<V>,
    /// The call it carries, if it is a request.
    pub(super) call: Option<u64>,
}

impl<V: Value + PartialEq, H: Clone, W: Clone> Endpoint<V, H, W> {
    pub(super) fn ready(&self, ack: bool, session: Option<SessionHello>) -> Message<V> {
        let policy = self.dispatcher.batch_policy();
        let capabilities = Capabilities {
            batches: policy != BatchPolicy::Reject,
            split_batch_answers: true,
            max_batch: match policy {
                BatchPolicy::Limit(most) => most,
                _ => 0,
            },
            stream_credit: true,
            progress: true,
            packed: self.offers_packed(),
            meta: self.offers_meta(),
            #[cfg(feature = "references")]
            references: self.offers_references(),
        };
        Message::Ready { ack, capabilities, presence: self.presence.clone(), session }
    }

    /// Whether this side's hello offers requests' metadata; also whether a
    /// peer's metadata reaches this side's handlers (whether or not the peer
    /// said hello: it is data either way).
    pub(super) fn offers_meta(&self) -> bool {
        self.config.meta && self.config.dialect == Dialect::Plain
    }

    /// Whether this side's requests carry their metadata: both sides offered it.
    fn sends_meta(&self) -> bool {
        self.offers_meta() && self.peer.is_some_and(|peer| peer.meta)
    }

    /// Whether this side's hello offers the packed form of batches.
    fn offers_packed(&self) -> bool {
        #[cfg(feature = "references")]
        let referring = self.offers_references();
        #[cfg(not(feature = "references"))]
        let referring = false;
        self.config.packed && self.config.dialect == Dialect::Plain && self.session.is_none() && !referring
    }

    /// Whether `transmit` goes in the packed form ([`crate::core::PACKED`]):
    /// both sides offered it, and it is a batch of the kind that packs
    /// ([`Transmit::packs`]). Anything else goes as the spec has it.
    pub fn packs(&self, transmit: &Transmit<V>) -> bool {
        self.offers_packed() && self.peer.is_some_and(|peer| peer.packed) && transmit.packs()
    }

    /// Whether a batch of `len` members that came packed is read member by
    /// member ([`Endpoint::takes_batch`]): only where this side offered the form.
    pub fn takes_packed(&self, len: usize) -> bool {
        self.offers_packed() && self.takes_batch(len)
    }

    pub(super) fn peer_ready(&mut self, capabilities: Capabilities) {
        self.peer = Some(capabilities);
        let replies = match capabilities.split_batch_answers {
            true => BatchReplies::AsSettled,
            false => BatchReplies::Whole,
        };
        self.dispatcher.set_batch_replies(replies);
        self.events.push_back(Event::PeerReady(capabilities));
        // What waited for the other side goes now.
        self.send_queued();
        #[cfg(feature = "references")]
        self.send_waiting();
    }

    // ---- sending -------------------------------------------------------------

    /// The end of a turn: what it queued goes out (several calls as one
    /// batch toward a peer that reads them), then the batch answers that
    /// settled meanwhile.
    pub fn flush(&mut self) {
        self.flush_scheduled = false;
        self.sent_alone = false;
        if self.destroyed {
            return;
        }
        self.announce_components();
        #[cfg(feature = "references")]
        self.send_releases();
        self.send_queued();
        for reply in self.dispatcher.take_settled() {
            self.transmit(reply_transmit(reply));
        }
    }

    pub(super) fn schedule_flush(&mut self) {
        if !core::mem::replace(&mut self.flush_scheduled, true) {
            self.events.push_back(Event::ScheduleFlush);
        }
    }

    pub(super) fn holding(&self) -> bool {
        matches!(self.config.handshake, Handshake::Hold | Handshake::Await) && self.peer.is_none()
    }

    pub(super) fn batches_out(&self) -> bool {
        match self.config.batching {
            Batching::Always => true,
            Batching::Never => false,
            Batching::Negotiated => self.peer.is_some_and(|peer| peer.batches),
        }
    }

    /// Sends a call or notification. Toward a peer that takes batches, a
    /// message sent while nothing else is in flight goes out at once (a lone
    /// call is never delayed), and the rest of the turn's go out together at
    /// its end: a burst costs the receiver one task, not one per call. Toward
    /// any other peer, each goes out at once, in order.
    pub(super) fn send(&mut self, message: Message<V>, call: Option<u64>) {
        // Decided first, then done in one place: the message is moved once,
        // not at each of the ways it may go.
        let at_once = if self.holding() {
            false
        } else if !self.batches_out() {
            self.send_queued();
            true
        } else {
            let others_in_flight = self.calls.len() > usize::from(call.is_some());
            let alone = self.queue.is_empty() && !self.sent_alone && !others_in_flight;
            match alone {
                true => self.sent_alone = true,
                false => self.schedule_flush(),
            }
            alone
        };
        match at_once {
            true => {
                self.mark_sent(call);
                self.transmit(Transmit::Single(message));
            }
            false => self.queue.push(Queued { message, call }),
        }
    }

    pub(super) fn send_queued(&mut self) {
        if self.queue.is_empty() || self.holding() {
            return;
        }
        // The next turn's queue starts as large as this one was: a steady
        // stream of calls does not grow it again every turn.
        let next = Vec::with_capacity(self.queue.len());
        let queued = core::mem::replace(&mut self.queue, next);
        for one in &queued {
            self.mark_sent(one.call);
        }
        // No batch longer than the peer answers (ours by default, if it did
        // not say); toward a peer that takes none, one message at a time.
        let most = match queued.len() > 1 && self.batches_out() {
            true => match self.peer.map_or(0, |peer| peer.max_batch) {
                0 => Limits::MAX_BATCH,
                most => most,
            },
            false => 1,
        };
        let mut batch = Vec::new();
        for queued in queued {
            batch.push(queued.message);
            if batch.len() == most {
                self.transmit_batch(&mut batch);
            }
        }
        self.transmit_batch(&mut batch);
    }

    /// What `batch` holds goes out, and it is left empty: one message alone,
    /// several as one batch.
    pub(super) fn transmit_batch(&mut self, batch: &mut Vec<Message<V>>) {
        match batch.len() {
            0 => {}
            1 => {
                if let Some(message) = batch.pop() {
                    self.transmit(Transmit::Single(message));
                }
            }
            _ => self.transmit(Transmit::Batch(core::mem::take(batch))),
        }
    }

    pub(super) fn mark_sent(&mut self, call: Option<u64>) {
        if let Some(call) = call.and_then(|id| self.calls.get_mut(id)) {
            call.sent = true;
        }
    }

    /// An answer goes out after what this side sent before it (a handler's
    /// chunks, its notifications), never ahead.
    pub(super) fn reply(&mut self, reply: Outgoing<V>) {
        self.send_queued();
        self.transmit(reply_transmit(reply));
    }

    pub(super) fn transmit(&mut self, mut transmit: Transmit<V>) {
        // Metadata goes only to a peer that offered it: a stranger gets the spec's request.
        if !self.sends_meta() {
            without_meta(&mut transmit);
        }
        let transmit = match &mut self.session {
            None => transmit,
            Some(session) => match session.outgoing(transmit) {
                Ok(Some(transmit)) => transmit,
                // Kept until a connection carries the session again.
                Ok(None) => return,
                // Past what the session may keep: it cannot be whole any more.
                Err(()) => return self.session_over(),
            },
        };
        self.events.push_back(Event::Transmit(transmit));
    }
}

/// `transmit` with its requests' metadata dropped.
fn without_meta<V>(transmit: &mut Transmit<V>) {
    let messages = match transmit {
        Transmit::Single(message) => core::slice::from_mut(message),
        Transmit::Batch(messages) => messages.as_mut_slice(),
    };
    for message in messages {
        if let Message::Request { meta, .. } = message {
            *meta = None;
        }
    }
}

impl<V: Value + PartialEq, H: Clone, W: Clone> Endpoint<V, H, W> {
    /// The transport refused what an [`Event::Transmit`] handed over (a
    /// value it cannot clone or encode, a channel gone), for `reason`;
    /// `sendable` says whether the transport can carry a payload. What goes
    /// instead:
    ///
    /// - an answer goes again without what it cannot carry: a result becomes
    ///   `-32603 "Result could not be sent: <reason>"`, an error loses its
    ///   `data`, so its caller learns why instead of timing out; in a batch
    ///   of answers, the ones `sendable` refuses (all, if it refuses none: a
    ///   buffer in a transfer list fails only when sent); what has nothing
    ///   left to take away is dropped, since the channel itself refused it;
    /// - a batch of calls and notifications goes again one message at a
    ///   time, so that only the culprit fails;
    /// - a lone call is taken off the pending calls: its id and waiter are
    ///   returned, for the host to fail it with the transport's reason;
    /// - anything else (a notification, a cancel, a chunk, a hello) is dropped.
    pub fn transmit_failed(
        &mut self,
        transmit: Transmit<V>,
        reason: &str,
        sendable: impl Fn(&V) -> bool,
    ) -> Option<(u64, W)> {
        match transmit {
            Transmit::Single(Message::Response(mut response)) => {
                if strippable(&response) {
                    #[cfg(feature = "references")]
                    self.give_back(response.refs.take());
                    mend(&mut response, reason);
                    self.transmit(Transmit::Single(Message::Response(response)));
                }
                None
            }
            #[cfg(not(feature = "references"))]
            Transmit::Single(Message::Request { id, .. }) => self.calls.remove(id).map(|call| (id, call.waiter)),
            #[cfg(feature = "references")]
            Transmit::Single(Message::Request { id, refs, .. }) => {
                self.give_back(refs);
                self.calls.remove(id).map(|call| (id, call.waiter))
            }
            #[cfg(feature = "references")]
            Transmit::Single(Message::Notification { refs, .. }) => {
                self.give_back(refs);
                None
            }
            Transmit::Single(_) => None,
            Transmit::Batch(mut messages) if messages.iter().all(|m| matches!(m, Message::Response(_))) => {
                let carried = |response: &Response<V>| match &response.payload {
                    Ok(result) => sendable(result),
                    Err(error) => error.data.as_ref().is_none_or(&sendable),
                };
                // No culprit found (a buffer in a transfer list fails only when sent): all are.
                let blame_all = messages.iter().all(|m| !matches!(m, Message::Response(r) if !carried(r)));
                let blamed = |response: &Response<V>| strippable(response) && (blame_all || !carried(response));
                let mut mended = false;
                for message in &mut messages {
                    if let Message::Response(response) = message {
                        if blamed(response) {
                            #[cfg(feature = "references")]
                            self.give_back(response.refs.take());
                            mend(response, reason);
                            mended = true;
                        }
                    }
                }
                if mended {
                    self.transmit(Transmit::Batch(messages));
                }
                None
            }
            Transmit::Batch(messages) => {
                for message in messages {
                    self.transmit(Transmit::Single(message));
                }
                None
            }
        }
    }
}

/// Whether an answer holds something a transport may have refused to carry.
fn strippable<V>(response: &Response<V>) -> bool {
    matches!(response.payload, Ok(_) | Err(ErrorObject { data: Some(_), .. }))
}

/// An answer without what a transport could not carry: the caller learns why.
fn mend<V>(response: &mut Response<V>, reason: &str) {
    let error = match &mut response.payload {
        Ok(_) => {
            let mut message = String::from("Result could not be sent: ");
            message.push_str(reason);
            ErrorObject::new(code::INTERNAL_ERROR, message)
        }
        Err(error) => ErrorObject::new(error.code, core::mem::take(&mut error.message)),
    };
    response.payload = Err(error);
}

fn reply_transmit<V>(reply: Outgoing<V>) -> Transmit<V> {
    match reply {
        Outgoing::Single(response) => Transmit::Single(Message::Response(response)),
        // A loop, not `map` and `collect`: their specialised collecting is
        // larger than the loop.
        Outgoing::Batch(responses) => {
            let mut messages = Vec::with_capacity(responses.len());
            for response in responses {
                messages.push(Message::Response(response));
            }
            Transmit::Batch(messages)
        }
    }
}
