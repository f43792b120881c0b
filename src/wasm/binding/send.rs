//! The binding's sending half: each message the core asks to send, built
//! and posted, and what happens when the transport refuses one.

use crate::prelude::*;

use alloc::rc::Rc;

use js_sys::Array;
use wasm_bindgen::prelude::*;

use super::super::boundary as js;
use super::Binding;
use crate::core::{code, Cancellation, ErrorObject, Message, Response, Transmit};

impl Binding {
    /// Sends what the core asked to. The two messages of every round trip
    /// are built and sent in one crossing each; the rest are built, then posted.
    pub(super) fn transmit(self: &Rc<Self>, transmit: Transmit<JsValue>) {
        let text = self.text.get();
        let sent = match &transmit {
            Transmit::Single(Message::Request { id, method, params }) if self.tracer.is_none() => {
                let params = self.outgoing_params(method, params);
                js::post_request(&self.transport, text, method, &params, *id as f64)
            }
            Transmit::Single(Message::Response(Response { id: Some(id), payload: Ok(result) }))
                if self.tracer.is_none() =>
            {
                js::post_result(&self.transport, text, id, result)
            }
            Transmit::Single(message) => self.post(&self.message(message)),
            Transmit::Batch(messages) => self.post(&messages.iter().map(|m| self.message(m)).collect::<Array>().into()),
        };
        if let Err(failure) = sent {
            self.refused(transmit, &failure);
        }
    }

    /// The transport refused a send (a `DataCloneError`, a closed socket).
    /// Answers are mended (see `mend`); a refused batch of calls goes again
    /// one by one, so only the culprit's call fails, with `SEND_FAILED`.
    pub(super) fn refused(self: &Rc<Self>, transmit: Transmit<JsValue>, failure: &JsValue) {
        let text = self.text.get();
        let messages = match transmit {
            Transmit::Single(Message::Response(response)) => {
                // The only answer is the culprit, whatever a check says (a
                // detached buffer in its transfer list fails only when sent).
                let mended = self.message(&Message::Response(mend(response, failure)));
                self.trace("unsendable-answer", failure);
                // If even the mended answer cannot be sent, the channel itself is gone.
                let _ = self.post(&mended);
                return;
            }
            Transmit::Batch(messages) if messages.iter().all(|m| matches!(m, Message::Response(_))) => {
                let sendable = |response: &Response<JsValue>| match &response.payload {
                    Ok(result) => js::encodable(result, text),
                    Err(error) => error.data.as_ref().is_none_or(|data| js::encodable(data, text)),
                };
                let mended: Array = messages
                    .into_iter()
                    .filter_map(|message| match message {
                        Message::Response(response) if !sendable(&response) => Some(mend(response, failure)),
                        Message::Response(response) => Some(response),
                        _ => None,
                    })
                    .map(|response| self.message(&Message::Response(response)))
                    .collect();
                self.trace("unsendable-answer", failure);
                let _ = self.post(&mended.into());
                return;
            }
            Transmit::Single(message) => vec![message],
            Transmit::Batch(messages) => messages,
        };
        let one_by_one = messages.len() > 1;
        for message in messages {
            let failure = match one_by_one {
                true => self.post(&self.message(&message)).err(),
                false => Some(failure.clone()),
            };
            if let (Some(failure), Message::Request { id, .. }) = (failure, message) {
                self.send_failed(id, &failure);
            }
        }
    }

    /// Posts a message or batch (traced as it goes, with a tracer).
    fn post(&self, message: &JsValue) -> Result<(), JsValue> {
        js::post(&self.transport, self.text.get(), message, self.tracer.as_ref().unwrap_or(&JsValue::UNDEFINED))
    }

    pub(super) fn message(&self, message: &Message<JsValue>) -> JsValue {
        let undefined = JsValue::UNDEFINED;
        match message {
            Message::Request { id, method, params } => {
                js::request_message(method, &self.outgoing_params(method, params), *id as f64)
            }
            Message::Notification { method, params } => {
                js::notification_message(method, &self.outgoing_params(method, params))
            }
            Message::Response(response) => {
                let null = JsValue::NULL;
                let id = response.id.as_ref().unwrap_or(&null);
                match &response.payload {
                    Ok(result) => js::result_message(id, result),
                    Err(error) => js::error_message(
                        id,
                        error.code as f64,
                        &error.message,
                        error.data.as_ref().unwrap_or(&undefined),
                    ),
                }
            }
            Message::Cancel { id, convention } => js::cancel_message(*id as f64, *convention == Cancellation::Mcp),
            Message::Chunk { id, chunk } => js::chunk_message(id, chunk),
            Message::StreamEnd { id } => js::stream_end_message(id),
            Message::Ready { ack, capabilities } => js::ready_message(
                *ack,
                capabilities.batches,
                capabilities.split_batch_answers,
                capabilities.max_batch as f64,
            ),
        }
    }

    pub(super) fn send_failed(self: &Rc<Self>, id: u64, failure: &JsValue) {
        let Some(waiter) = self.core().and_then(|mut core| core.send_failed(id)) else { return };
        if let Some(tracer) = self.tracer() {
            tracer.failed("send-failed", id as f64, &waiter, failure);
        }
        let reason = js::concat(&["Request could not be sent: ", &js::describe(failure)]);
        js::settle(&waiter, false, &js::rpc_error(code::SEND_FAILED, &reason, failure));
    }
}

/// An answer the transport refused, as an error without payload: the
/// caller learns why instead of waiting for its timeout.
fn mend(response: Response<JsValue>, failure: &JsValue) -> Response<JsValue> {
    let error = match response.payload {
        Ok(_) => {
            let reason = js::concat(&["Result could not be sent: ", &js::describe(failure)]);
            ErrorObject::new(code::INTERNAL_ERROR, reason)
        }
        Err(error) => ErrorObject::new(error.code, error.message),
    };
    Response { id: response.id, payload: Err(error) }
}
