//! `serde_json` on the native side: text in, [`serde_json::Value`] messages
//! out. The browser build never links this; its payloads stay JS values.

use serde_json::{json, Map, Value as Json};

use super::dispatch::Outgoing;
use super::error::ErrorObject;
use super::message::Response;

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
    message.insert("id".into(), response.id.clone().unwrap_or(Json::Null));
    Json::Object(message)
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
