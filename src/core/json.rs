//! `serde_json` on the native side: text in, [`serde_json::Value`] messages
//! out. The browser build never links this; its payloads stay JS values.

use serde_json::{json, Map, Value as Json};

use super::dispatch::Outgoing;
#[cfg(feature = "handoff")]
use super::endpoint::{kept_sends, HandedSession};
use super::error::ErrorObject;
use super::message::{Id, Response};
#[cfg(feature = "references")]
use super::wire::RELEASE;
use super::wire::{
    Message, Transmit, MCP_PROGRESS, META, PACKED, PROGRESS, READY, SESSION_ACK, STREAM_CHUNK, STREAM_CREDIT,
    STREAM_END,
};

/// Parses JSON text; `None` means the sender gets `-32700`.
pub fn parse(text: &str) -> Option<Json> {
    serde_json::from_str(text).ok()
}

pub fn response(response: &Response<Json>) -> Json {
    let mut message = Map::new();
    message.insert("jsonrpc".into(), json!("2.0"));
    match &response.payload {
        Ok(result) => message.insert("result".into(), result.clone()),
        Err(error) => message.insert("error".into(), error_object(error)),
    };
    message.insert("id".into(), response.id.clone().map_or(Json::Null, Id::into_value));
    #[cfg(feature = "references")]
    if let Some(refs) = &response.refs {
        message.insert("refs".into(), refs.clone());
    }
    Json::Object(message)
}

/// A request with its metadata beside its params, when it has any.
fn with_meta(mut call: Json, meta: &Option<Json>) -> Json {
    if let (Some(meta), Json::Object(members)) = (meta, &mut call) {
        members.insert(META.into(), meta.clone());
    }
    call
}

/// A call with its `refs` beside its params, when it has any.
#[cfg(feature = "references")]
fn with_refs(mut call: Json, refs: &Option<Json>) -> Json {
    if let (Some(refs), Json::Object(members)) = (refs, &mut call) {
        members.insert("refs".into(), refs.clone());
    }
    call
}

pub fn error_object(error: &ErrorObject<Json>) -> Json {
    let mut object = Map::new();
    object.insert("code".into(), json!(error.code));
    object.insert("message".into(), json!(error.message));
    if let Some(data) = &error.data {
        object.insert("data".into(), data.clone());
    }
    Json::Object(object)
}

pub fn outgoing(outgoing: &Outgoing<Json>) -> Json {
    match outgoing {
        Outgoing::Single(reply) => response(reply),
        Outgoing::Batch(replies) => Json::Array(replies.iter().map(response).collect()),
    }
}

/// One message of an endpoint, as JSON.
pub fn message(message: &Message<Json>) -> Json {
    let call = |method: &Json, params: &Option<Json>| {
        let mut call = json!({"jsonrpc": "2.0", "method": method});
        if let Some(params) = params {
            call["params"] = params.clone();
        }
        call
    };
    let notification = |method: &str, params: Json| call(&json!(method), &Some(params));
    match message {
        #[cfg(not(feature = "references"))]
        Message::Request { id, method, params, meta } => {
            let mut request = call(method, params);
            request["id"] = json!(id);
            with_meta(request, meta)
        }
        #[cfg(not(feature = "references"))]
        Message::Notification { method, params } => call(method, params),
        #[cfg(feature = "references")]
        Message::Request { id, method, params, meta, refs } => {
            let mut request = call(method, params);
            request["id"] = json!(id);
            with_refs(with_meta(request, meta), refs)
        }
        #[cfg(feature = "references")]
        Message::Notification { method, params, refs } => with_refs(call(method, params), refs),
        #[cfg(feature = "references")]
        Message::Release { refs } => {
            let pairs: Vec<Json> = refs.iter().map(|(id, count)| json!([id, count])).collect();
            notification(RELEASE, json!({ "refs": pairs }))
        }
        Message::Response(reply) => response(reply),
        #[cfg(feature = "handoff")]
        Message::Kept(message) => message.clone(),
        Message::Cancel { id, convention } => {
            let mut params = serde_json::Map::new();
            params.insert(convention.id_member().into(), json!(id));
            notification(convention.method(), params.into())
        }
        Message::Chunk { id, chunk } => notification(STREAM_CHUNK, json!({ "id": id.value(), "chunk": chunk })),
        Message::StreamEnd { id } => notification(STREAM_END, json!({ "id": id.value() })),
        Message::Credit { id, credit } => notification(STREAM_CREDIT, json!({ "id": id, "credit": credit })),
        Message::Progress { params, mcp } => notification(if *mcp { MCP_PROGRESS } else { PROGRESS }, params.clone()),
        Message::Ack { received } => notification(SESSION_ACK, json!({ "received": received })),
        Message::Ready { ack, capabilities, presence, session } => {
            let mut params = json!({
                "ack": ack,
                "batches": capabilities.batches,
                "splitBatchAnswers": capabilities.split_batch_answers,
                "maxBatch": capabilities.max_batch,
                "streamCredit": capabilities.stream_credit,
                "progress": capabilities.progress,
            });
            if let (true, Json::Object(members)) = (capabilities.packed, &mut params) {
                members.insert(PACKED.into(), json!(true));
            }
            if let (true, Json::Object(members)) = (capabilities.meta, &mut params) {
                members.insert(META.into(), json!(true));
            }
            #[cfg(feature = "references")]
            if let (true, Json::Object(members)) = (capabilities.references, &mut params) {
                members.insert("references".into(), json!(true));
            }
            if let (Some(presence), Json::Object(members)) = (presence, &mut params) {
                members.insert("presence".into(), json!(presence));
            }
            if let (Some(session), Json::Object(members)) = (session, &mut params) {
                let mut hello = json!({ "received": session.received });
                if let Some(id) = &session.id {
                    hello["id"] = json!(id);
                }
                if let Some(resumed) = session.resumed {
                    hello["resumed"] = json!(resumed);
                }
                if let Some(grace) = session.grace_ms {
                    hello["grace"] = json!(grace);
                }
                members.insert("session".into(), hello);
            }
            notification(READY, params)
        }
    }
}

/// What an endpoint sends in one go, as JSON: a message or a batch array.
pub fn transmit(transmit: &Transmit<Json>) -> Json {
    match transmit {
        Transmit::Single(one) => message(one),
        Transmit::Batch(many) => Json::Array(many.iter().map(message).collect()),
    }
}

/// A handed session as JSON (the form `handoff.rs` describes), to carry it
/// to another process: its messages as they go on the wire.
#[cfg(feature = "handoff")]
pub fn handed(session: &HandedSession<Json>) -> Json {
    json!({
        "id": session.id,
        "grace": session.grace_ms,
        "maxKept": session.max_kept,
        "sent": session.sent,
        "received": session.received,
        "nextCall": session.next_call,
        "unacked": session.unacked.iter().map(transmit).collect::<Vec<_>>(),
        "held": session.held.iter().map(transmit).collect::<Vec<_>>(),
    })
}

/// The session [`handed`] wrote, its messages kept as they are (`Message::Kept`);
/// `None` when `value` is not one.
#[cfg(feature = "handoff")]
pub fn handed_from(value: &Json) -> Option<HandedSession<Json>> {
    let count = |name: &str| value.get(name)?.as_u64();
    Some(HandedSession {
        id: value.get("id")?.as_str()?.to_owned(),
        grace_ms: count("grace")?,
        max_kept: usize::try_from(count("maxKept")?).ok()?,
        sent: count("sent")?,
        received: count("received")?,
        unacked: kept_sends(value.get("unacked")?)?,
        held: kept_sends(value.get("held")?)?,
        next_call: count("nextCall")?,
    })
}
