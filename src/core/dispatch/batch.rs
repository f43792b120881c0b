//! Batches at the dispatcher: whether one is refused whole, its members
//! answered one by one, and the replies of its calls assembled as they
//! complete (a lone call's reply is the simplest assembly: itself).

use crate::prelude::*;

use super::{Action, CallId, Dispatcher, InFlight, Outgoing};
use crate::core::error::{code, ErrorObject};
use crate::core::inbound::Envelope;
use crate::core::message::Response;
use crate::core::value::{Kind, Value};

/// What a server does with a batch (an array of requests).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BatchPolicy {
    /// Answer it, as the JSON-RPC 2.0 specification requires (the default).
    Allow,
    /// Refuse every batch with one `-32600 "Batch requests not supported"`.
    Reject,
    /// Refuse batches of more than this many members with one `-32600`.
    Limit(usize),
}

/// How a server answers a batch whose calls finish at different times.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BatchReplies {
    /// One array once every call of the batch has completed, as the spec
    /// says a server should. The default.
    Whole,
    /// The answers settled since the host last called
    /// [`Dispatcher::take_settled`] go out together, as one array: a batch
    /// whose calls all finish at once still gets exactly one array, and a slow
    /// call does not hold back the answers of the others.
    AsSettled,
}

pub(super) struct Batch<V> {
    replies: Vec<Slot<V>>,
    outstanding: usize,
}

/// One answer of a batch, in request order.
enum Slot<V> {
    Waiting,
    Settled(Response<V>),
    Sent,
}

/// The answers settled in `replies`, in request order. A loop, not
/// `filter_map` and `collect`: their specialised collecting is larger.
fn settled<V>(replies: Vec<Slot<V>>) -> Vec<Response<V>> {
    let mut responses = Vec::with_capacity(replies.len());
    for reply in replies {
        if let Slot::Settled(response) = reply {
            responses.push(response);
        }
    }
    responses
}

impl<V: Value + PartialEq, H: Clone> Dispatcher<V, H> {
    /// Whether a batch of `len` members is one this side reads member by
    /// member (not refused for its size or for being a batch), so a host
    /// may read the members' envelopes itself, for
    /// [`Dispatcher::receive_members`].
    pub fn takes_batch(&self, len: usize) -> bool {
        self.batch_refusal(len).is_none()
    }

    /// Why a batch of `len` members is refused whole, if it is: empty, past
    /// the limit, or batches refused.
    fn batch_refusal(&self, len: usize) -> Option<ErrorObject<V>> {
        match self.batch_policy {
            _ if len == 0 => Some(ErrorObject::standard(code::INVALID_REQUEST)),
            BatchPolicy::Reject => Some(ErrorObject::new(code::INVALID_REQUEST, "Batch requests not supported")),
            BatchPolicy::Limit(most) if len > most => Some(ErrorObject::new(code::INVALID_REQUEST, "Batch too large")),
            _ => None,
        }
    }

    /// [`Dispatcher::receive`] for a batch whose members' envelopes the
    /// caller has read (`None` for a member that is not an object).
    pub fn receive_members(&mut self, members: Vec<Option<Envelope<V>>>) -> Vec<Action<V, H>> {
        let mut actions = Vec::new();
        // Each member is asked by reference: nothing of it is copied to be classified.
        let responses = members.iter().map(|member| member.as_ref().is_some_and(Envelope::is_response));
        if !self.refused(members.len(), responses, &mut actions) {
            self.receive_batch(
                members,
                #[cfg(feature = "references")]
                Vec::new(),
                &mut actions,
            );
        }
        actions
    }

    /// Whether a batch of `len` members is refused whole (the refusal, from
    /// a server, goes into `actions`). A batch of responses (to this side's
    /// own batch) never is: `responses` says of each member whether it is
    /// one, and is read, as far as the first that is not, only for a batch
    /// refused otherwise.
    pub(super) fn refused(
        &self,
        len: usize,
        mut responses: impl Iterator<Item = bool>,
        actions: &mut Vec<Action<V, H>>,
    ) -> bool {
        let Some(error) = self.batch_refusal(len) else { return false };
        let responses_only = len != 0 && responses.all(|response| response);
        if responses_only {
            return false;
        }
        if self.roles.server {
            actions.push(Action::Send(Outgoing::Single(Response::error(None, error))));
        }
        true
    }

    /// Reports how a handler ended. Returns the reply to send, if this
    /// completes something: the call itself, or the last open call of a batch.
    pub fn complete(&mut self, call: CallId, outcome: Result<V, ErrorObject<V>>) -> Option<Outgoing<V>> {
        let InFlight { id, batch, .. } = self.calls.remove(&call.0)?;
        let response = Response {
            id: Some(id),
            payload: outcome,
            #[cfg(feature = "references")]
            refs: self.answer_refs.take(),
        };
        let Some((key, slot)) = batch else {
            return Some(Outgoing::Single(response));
        };
        let open = self.batches.get_mut(&key)?;
        // `get_mut`, not an index: the slot is there, and no panic site is built.
        if let Some(reply) = open.replies.get_mut(slot) {
            *reply = Slot::Settled(response);
        }
        open.outstanding -= 1;
        if open.outstanding > 0 || self.batch_replies == BatchReplies::AsSettled {
            return None;
        }
        let done = self.batches.remove(&key)?;
        Some(Outgoing::Batch(settled(done.replies)))
    }

    /// With [`BatchReplies::AsSettled`]: the answers of each batch settled
    /// since the last call, one array per batch, in request order. The host
    /// calls it after running a message's handlers and whenever async
    /// handlers have settled (once per turn is enough).
    pub fn take_settled(&mut self) -> Vec<Outgoing<V>> {
        let mut out = Vec::new();
        if self.batch_replies == BatchReplies::Whole {
            return out;
        }
        self.batches.retain(|_, batch| {
            let mut settled = Vec::new();
            for slot in &mut batch.replies {
                if matches!(slot, Slot::Settled(_)) {
                    if let Slot::Settled(response) = core::mem::replace(slot, Slot::Sent) {
                        settled.push(response);
                    }
                }
            }
            if !settled.is_empty() {
                out.push(Outgoing::Batch(settled));
            }
            batch.outstanding > 0
        });
        out
    }

    /// A batch that is not refused (see [`Dispatcher::refused`]).
    /// `refs`: each member's references, by position (empty: none).
    pub(super) fn receive_batch(
        &mut self,
        members: Vec<Option<Envelope<V>>>,
        #[cfg(feature = "references")] refs: Vec<Option<V>>,
        actions: &mut Vec<Action<V, H>>,
    ) {
        let key = self.next_batch;
        self.next_batch = self.next_batch.wrapping_add(1);
        let mut replies: Vec<Slot<V>> = Vec::new();
        let mut outstanding = 0;
        #[cfg(feature = "references")]
        let mut refs = refs.into_iter();
        for member in members {
            // The member's references go with its own actions, bracketed.
            #[cfg(feature = "references")]
            let brought = match refs.next().flatten() {
                Some(brought) => {
                    actions.push(Action::Refs(Some(brought)));
                    true
                }
                None => false,
            };
            let slot = replies.len();
            let calls_before = self.calls.len();
            let inbound = self.classify_member(member);
            let reply = self.answer(inbound, Some((key, slot)), actions);
            #[cfg(feature = "references")]
            if brought {
                actions.push(Action::Refs(None));
            }
            if self.calls.len() > calls_before {
                replies.push(Slot::Waiting);
                outstanding += 1;
            } else if let Some(reply) = reply {
                replies.push(Slot::Settled(reply));
            }
        }
        if replies.is_empty() {
            return;
        }
        if outstanding == 0 {
            actions.push(Action::Send(Outgoing::Batch(settled(replies))));
        } else {
            self.batches.insert(key, Batch { replies, outstanding });
        }
    }
}

/// A batch's member as [`Dispatcher::receive_members`] takes it: an object's
/// envelope, or `None`.
pub(super) fn member_of<V: Value>(member: &V) -> Option<Envelope<V>> {
    (member.kind() == Kind::Object).then(|| Envelope::read(member))
}
