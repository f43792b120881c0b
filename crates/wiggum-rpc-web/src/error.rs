//! How a call failed, as one Rust type: the error object the other side
//! answered with, or how the call ended on this side (the codes of
//! [`crate::code`]).

use core::fmt;

use serde::de::DeserializeOwned;
use serde::Serialize;
use wasm_bindgen::JsValue;
use wiggum_rpc::core::{code, ErrorObject, Failure};

use crate::value::Js;

/// A JSON-RPC error: what a handler returns to refuse a call, and what a
/// call's future fails with.
#[derive(Clone, Debug, PartialEq)]
pub struct Error {
    /// The error's code: one of [`crate::code`], or an application's own.
    pub code: i64,
    pub message: String,
    /// The error's `data` member, as it came (a JS value, untouched).
    pub data: Option<JsValue>,
}

impl Error {
    pub fn new(code: i64, message: impl Into<String>) -> Self {
        Error { code, message: message.into(), data: None }
    }

    /// This error with `data`, serialized as JSON would carry it.
    pub fn with_data(mut self, data: &impl Serialize) -> Self {
        self.data = crate::peer::to_js(data).ok();
        self
    }

    /// This error with a JS value as its `data`, untouched.
    pub fn with_js_data(mut self, data: JsValue) -> Self {
        self.data = Some(data);
        self
    }

    /// The `data` member read as `T` (`None` when absent or of another shape).
    pub fn data_as<T: DeserializeOwned>(&self) -> Option<T> {
        serde_wasm_bindgen::from_value(self.data.clone()?).ok()
    }

    /// Params that are not what the method takes (`-32602`).
    pub fn invalid_params(why: impl fmt::Display) -> Self {
        Error::new(code::INVALID_PARAMS, format!("Invalid params: {why}"))
    }

    pub(crate) fn from_object(error: ErrorObject<Js>) -> Self {
        Error { code: error.code, message: error.message, data: error.data.map(|data| data.0) }
    }

    pub(crate) fn into_object(self) -> ErrorObject<Js> {
        ErrorObject { code: self.code, message: self.message, data: self.data.map(Js) }
    }

    /// How a call ended without an answer, with the JS API's codes and messages.
    pub(crate) fn failed(failure: Failure, method: &str) -> Self {
        match failure {
            Failure::Timeout { sent: true } => {
                Error::new(code::REQUEST_TIMEOUT, format!("Request timed out: {method}"))
            }
            Failure::Timeout { sent: false } => Error::new(
                code::REQUEST_TIMEOUT,
                format!("Request timed out before it could be sent: no hello from the other side (or its frame never loaded): {method}"),
            ),
            Failure::Cancelled => Error::new(code::REQUEST_CANCELLED, format!("Request aborted: {method}")),
            Failure::Destroyed => Error::new(code::DESTROYED, "The endpoint was destroyed"),
            Failure::ConnectionClosed => Error::new(code::CONNECTION_CLOSED, "Connection closed"),
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.message, self.code)
    }
}

impl std::error::Error for Error {}

impl From<serde_wasm_bindgen::Error> for Error {
    /// A value that does not serialize or deserialize as asked: an internal
    /// error (a handler's params that do not read become `-32602` instead).
    fn from(error: serde_wasm_bindgen::Error) -> Self {
        Error::new(code::INTERNAL_ERROR, error.to_string())
    }
}
