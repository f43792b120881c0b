//! The message model: requests, notifications and responses, as the spec
//! names them. Ids and payloads are values of the caller's type and are
//! echoed exactly: the core never rebuilds an id it was given.

use crate::prelude::*;

use super::error::ErrorObject;

/// A call that expects a response. `id` is a null, number or string value.
#[derive(Clone, Debug, PartialEq)]
pub struct Request<V> {
    pub id: V,
    pub method: String,
    pub params: Option<V>,
}

/// A call without an id: it gets no response, ever.
#[derive(Clone, Debug, PartialEq)]
pub struct Notification<V> {
    pub method: String,
    pub params: Option<V>,
}

/// A response: exactly one of `result` or `error`, never both, never neither.
#[derive(Clone, Debug, PartialEq)]
pub struct Response<V> {
    /// The request's id, or `None` for null when the id could not be read.
    pub id: Option<V>,
    pub payload: Result<V, ErrorObject<V>>,
}

impl<V> Response<V> {
    pub fn error(id: Option<V>, error: ErrorObject<V>) -> Self {
        Response { id, payload: Err(error) }
    }
}
