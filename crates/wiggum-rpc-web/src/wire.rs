//! What the core sends, as the JS objects posted: each message as the
//! spec shapes it (and as the npm package builds it), a batch as an array.

use js_sys::{Array, Object, Reflect};
use wasm_bindgen::JsValue;
use wiggum_rpc::core::{
    ErrorObject, Message, Response, Transmit, MCP_PROGRESS, PROGRESS, READY, SESSION_ACK, STREAM_CHUNK, STREAM_CREDIT,
    STREAM_END,
};

use crate::value::Js;

/// An object with these members, in order.
fn object(members: &[(&str, &JsValue)]) -> JsValue {
    let object = Object::new();
    for (name, value) in members {
        let _ = Reflect::set(&object, &JsValue::from_str(name), value);
    }
    object.into()
}

fn call(method: &JsValue, params: Option<&JsValue>, id: Option<u64>) -> JsValue {
    let version = JsValue::from_str("2.0");
    let id = id.map(|id| JsValue::from_f64(id as f64));
    let mut members: Vec<(&str, &JsValue)> = vec![("jsonrpc", &version), ("method", method)];
    if let Some(params) = params {
        members.push(("params", params));
    }
    if let Some(id) = &id {
        members.push(("id", id));
    }
    object(&members)
}

fn notification(method: &str, params: &JsValue) -> JsValue {
    call(&JsValue::from_str(method), Some(params), None)
}

pub(crate) fn error_object(error: &ErrorObject<Js>) -> JsValue {
    let code = JsValue::from_f64(error.code as f64);
    let message = JsValue::from_str(&error.message);
    match &error.data {
        Some(data) => object(&[("code", &code), ("message", &message), ("data", &data.0)]),
        None => object(&[("code", &code), ("message", &message)]),
    }
}

fn response(response: &Response<Js>) -> JsValue {
    let version = JsValue::from_str("2.0");
    let id = response.id.as_ref().map_or(JsValue::NULL, |id| id.value().0.clone());
    match &response.payload {
        Ok(result) => object(&[("jsonrpc", &version), ("result", &result.0), ("id", &id)]),
        Err(error) => object(&[("jsonrpc", &version), ("error", &error_object(error)), ("id", &id)]),
    }
}

fn number(n: f64) -> JsValue {
    JsValue::from_f64(n)
}

/// One message, as posted.
pub(crate) fn message(message: &Message<Js>) -> JsValue {
    match message {
        Message::Request { id, method, params, .. } => call(&method.0, params.as_ref().map(|p| &p.0), Some(*id)),
        Message::Notification { method, params, .. } => call(&method.0, params.as_ref().map(|p| &p.0), None),
        Message::Response(reply) => response(reply),
        Message::Cancel { id, convention } => {
            notification(convention.method(), &object(&[(convention.id_member(), &number(*id as f64))]))
        }
        Message::Chunk { id, chunk } => {
            notification(STREAM_CHUNK, &object(&[("id", &id.value().0), ("chunk", &chunk.0)]))
        }
        Message::StreamEnd { id } => notification(STREAM_END, &object(&[("id", &id.value().0)])),
        Message::Credit { id, credit } => notification(
            STREAM_CREDIT,
            &object(&[("id", &number(*id as f64)), ("credit", &number(f64::from(*credit)))]),
        ),
        Message::Progress { params, mcp } => notification(if *mcp { MCP_PROGRESS } else { PROGRESS }, &params.0),
        Message::Ack { received } => notification(SESSION_ACK, &object(&[("received", &number(*received as f64))])),
        Message::Ready { ack, capabilities, presence, session } => {
            let flag = JsValue::from_bool;
            let params = object(&[
                ("ack", &flag(*ack)),
                ("batches", &flag(capabilities.batches)),
                ("splitBatchAnswers", &flag(capabilities.split_batch_answers)),
                ("maxBatch", &number(capabilities.max_batch as f64)),
                ("streamCredit", &flag(capabilities.stream_credit)),
                ("progress", &flag(capabilities.progress)),
            ]);
            if let Some(presence) = presence {
                let _ = Reflect::set(&params, &JsValue::from_str("presence"), &JsValue::from_str(presence));
            }
            if let Some(session) = session {
                let hello = object(&[("received", &number(session.received as f64))]);
                let set = |name: &str, value: JsValue| {
                    let _ = Reflect::set(&hello, &JsValue::from_str(name), &value);
                };
                if let Some(id) = &session.id {
                    set("id", JsValue::from_str(id));
                }
                if let Some(resumed) = session.resumed {
                    set("resumed", JsValue::from_bool(resumed));
                }
                if let Some(grace) = session.grace_ms {
                    set("grace", number(grace as f64));
                }
                let _ = Reflect::set(&params, &JsValue::from_str("session"), &hello);
            }
            notification(READY, &params)
        }
        // What other features of the core make (references, handed
        // sessions): this crate never asks for them.
        #[allow(unreachable_patterns)]
        _ => JsValue::NULL,
    }
}

/// What one post carries: a message, or a batch as one array.
pub(crate) fn transmit(transmit: &Transmit<Js>) -> JsValue {
    match transmit {
        Transmit::Single(one) => message(one),
        Transmit::Batch(many) => many.iter().map(message).collect::<Array>().into(),
    }
}

/// The payloads of a send that may hold what a transfer list moves: params
/// of calls and notifications, results.
pub(crate) fn payloads(transmit: &Transmit<Js>) -> impl Iterator<Item = &JsValue> {
    transmit.messages().iter().filter_map(|message| match message {
        Message::Request { params, .. } | Message::Notification { params, .. } => params.as_ref().map(|p| &p.0),
        Message::Response(Response { payload: Ok(result), .. }) => Some(&result.0),
        _ => None,
    })
}
