//! The binding's sending half: each message the core asks to send, built
//! and posted, and what happens when the transport refuses one.

use alloc::rc::Rc;

use js_sys::Array;
use wasm_bindgen::prelude::*;

use super::super::boundary::{self as js, keys};
use super::Binding;
use crate::core::{code, Cancellation, Id, Message, Response, Transmit};

impl Binding {
    /// Sends what the core asked to. The two messages of every round trip
    /// are built and sent in one crossing each; the rest are built, then posted.
    pub(super) fn transmit(self: &Rc<Self>, transmit: Transmit<JsValue>) {
        if let Some(tracer) = self.tracer() {
            // The tracer times this side's calls; a request of the endpoint's own is none.
            let waiting = |id: u64| self.core().is_some_and(|core| core.is_waiting(id));
            let sent = |message: &Message<JsValue>| {
                if let Message::Request { id, method, .. } = message {
                    if waiting(*id) {
                        js::trace_sent(tracer, *id as f64, method);
                    }
                }
            };
            match &transmit {
                Transmit::Single(message) => sent(message),
                Transmit::Batch(messages) => messages.iter().for_each(sent),
            }
        }
        let text = self.text.get();
        let plain = self.tracer.is_none() && self.settled.is_none();
        let sent = match &transmit {
            Transmit::Single(Message::Request { id, method, params }) if plain => {
                let undefined = JsValue::UNDEFINED;
                let params = params.as_ref().unwrap_or(&undefined);
                js::post_request(&self.transport, text, method, params, *id as f64)
            }
            Transmit::Single(Message::Response(Response { id: Some(id), payload: Ok(result) })) if plain => {
                js::post_result(&self.transport, text, id.value(), result)
            }
            Transmit::Single(message) => self.post(&self.message(message), &transmit),
            Transmit::Batch(messages) => {
                // A batch's requests and results are built onto the array in
                // one crossing each; the rest are built, then appended.
                let batch = Array::new();
                let undefined = JsValue::UNDEFINED;
                for message in messages {
                    match message {
                        Message::Request { id, method, params } => {
                            js::push_request(&batch, method, params.as_ref().unwrap_or(&undefined), *id as f64)
                        }
                        Message::Response(Response { id: Some(id), payload: Ok(result) }) => {
                            js::push_result(&batch, id.value(), result)
                        }
                        other => {
                            batch.push(&self.message(other));
                        }
                    }
                }
                self.post(&batch.into(), &transmit)
            }
        };
        if let Err(failure) = sent {
            self.refused(transmit, &failure);
        }
    }

    /// The transport refused a send (a `DataCloneError`, a closed socket):
    /// the core decides what goes instead (`Endpoint::transmit_failed`); a
    /// lone call it gives back fails here with `SEND_FAILED`.
    pub(super) fn refused(self: &Rc<Self>, transmit: Transmit<JsValue>, failure: &JsValue) {
        let text = self.text.get();
        let answers = match &transmit {
            Transmit::Single(message) => matches!(message, Message::Response(_)),
            Transmit::Batch(messages) => messages.iter().any(|m| matches!(m, Message::Response(_))),
        };
        if answers {
            self.trace("unsendable-answer", failure);
        }
        let reason = js::describe(failure);
        let mut unsent = None;
        self.with_core(|core| {
            unsent = core.transmit_failed(transmit, &reason, |value| js::encodable(value, i32::from(text)) != 0);
        });
        if let Some((id, ())) = unsent {
            if let Some(tracer) = self.tracer() {
                tracer.failed("send-failed", id as f64, &self.hooks, failure);
            }
            let reason = js::concat(&["Request could not be sent: ", &reason]);
            js::reject_call(&self.hooks, id as f64, &js::rpc_error(code::SEND_FAILED, &reason, failure));
        }
    }

    /// Posts a message or batch (traced as it goes, with a tracer), with the
    /// ids of the calls it carries for a transport that reports undelivered ones.
    fn post(&self, message: &JsValue, transmit: &Transmit<JsValue>) -> Result<(), JsValue> {
        let calls = match self.settled.is_some() {
            true => {
                let id = |message: &Message<JsValue>| match message {
                    Message::Request { id, .. } => Some(JsValue::from(*id as f64)),
                    _ => None,
                };
                match transmit {
                    Transmit::Single(message) => id(message).into_iter().collect::<Array>(),
                    Transmit::Batch(messages) => messages.iter().filter_map(id).collect(),
                }
                .into()
            }
            false => JsValue::UNDEFINED,
        };
        let untraced = JsValue::UNDEFINED;
        js::post(&self.transport, self.text.get(), message, self.tracer.as_ref().unwrap_or(&untraced), &calls)
    }

    pub(super) fn message(&self, message: &Message<JsValue>) -> JsValue {
        let undefined = JsValue::UNDEFINED;
        match message {
            Message::Request { id, method, params } => {
                js::request_message(method, params.as_ref().unwrap_or(&undefined), *id as f64)
            }
            Message::Notification { method, params } => {
                js::notification_message(method, params.as_ref().unwrap_or(&undefined))
            }
            Message::Response(response) => {
                let null = JsValue::NULL;
                let id = response.id.as_ref().map_or(&null, Id::value);
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
            Message::Cancel { id, convention } => {
                let (method, member) = match convention {
                    Cancellation::Lsp => (keys::CANCEL_METHOD, keys::CANCEL_ID),
                    Cancellation::Mcp => (keys::MCP_CANCEL_METHOD, keys::MCP_CANCEL_ID),
                };
                method.with(|method| member.with(|member| js::cancel_message(method, member, *id as f64)))
            }
            Message::Chunk { id, chunk } => {
                keys::CHUNK_METHOD.with(|method| js::chunk_message(method, id.value(), chunk))
            }
            Message::StreamEnd { id } => keys::END_METHOD.with(|method| js::stream_end_message(method, id.value())),
            Message::Credit { id, credit } => {
                keys::CREDIT_METHOD.with(|method| js::credit_message(method, *id as f64, *credit as f64))
            }
            Message::Ready { ack, capabilities, presence, session } => keys::READY_METHOD.with(|method| {
                let session = session.as_ref().map_or(JsValue::UNDEFINED, |session| {
                    let resumed = session.resumed.map_or(JsValue::UNDEFINED, JsValue::from_bool);
                    let grace = session.grace_ms.map_or(JsValue::UNDEFINED, |ms| JsValue::from_f64(ms as f64));
                    js::session_member(session.id.as_deref(), session.received as f64, resumed, grace)
                });
                js::ready_message(
                    method,
                    *ack,
                    capabilities.batches,
                    capabilities.split_batch_answers,
                    capabilities.max_batch as f64,
                    capabilities.stream_credit,
                    capabilities.progress,
                    presence.as_deref(),
                    &session,
                )
            }),
            Message::Progress { params, mcp } => {
                let method = if *mcp { keys::MCP_PROGRESS_METHOD } else { keys::PROGRESS_METHOD };
                method.with(|method| js::notification_message(method, params))
            }
            Message::Ack { received } => keys::ACK_METHOD.with(|method| js::ack_message(method, *received as f64)),
        }
    }
}
