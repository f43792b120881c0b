//! The calls in flight, as the endpoint asks about them: the id each
//! answers, whether one is still served, and the credit of one that streams.

use super::{CallId, Dispatcher};
use crate::core::message::Id;
use crate::core::value::Value;

impl<V: Value + PartialEq, H: Clone> Dispatcher<V, H> {
    /// A chunk is going out for the call: returns the id to tag it with
    /// (`None` once the call has been answered: a chunk then belongs to nothing).
    pub fn stream(&mut self, call: CallId) -> Option<Id<V>> {
        let in_flight = self.calls.get_mut(&call.0)?;
        in_flight.streamed = true;
        if let Some(credit) = &mut in_flight.credit {
            *credit = credit.saturating_sub(1);
        }
        Some(in_flight.id.clone())
    }

    /// Whether the handler of `call` may send a chunk now: it has credit, or
    /// its caller bounds nothing (false once the call has been answered).
    pub fn may_stream(&self, call: CallId) -> bool {
        self.calls.get(&call.0).is_some_and(|in_flight| in_flight.credit != Some(0))
    }

    /// The id of a call that sent chunks, when its answer is about to go:
    /// its `stream.end` goes first.
    pub fn stream_end(&self, call: CallId) -> Option<Id<V>> {
        self.calls.get(&call.0).filter(|in_flight| in_flight.streamed).map(|in_flight| in_flight.id.clone())
    }

    /// The id of the request `call` answers.
    pub fn id_of(&self, call: CallId) -> Option<&Id<V>> {
        self.calls.get(&call.0).map(|in_flight| &in_flight.id)
    }

    /// Whether `call` is still waiting for its answer.
    pub fn is_serving(&self, call: CallId) -> bool {
        self.calls.contains_key(&call.0)
    }

    /// Whether no call or batch is left half-answered (none is being served).
    pub fn is_clean(&self) -> bool {
        self.calls.is_empty() && self.batches.is_empty()
    }
}
