//! The message model: requests, notifications and responses, as the spec
//! names them, and their ids. Ids and payloads are values of the caller's
//! type and are echoed exactly: the core never rebuilds an id it was given.

use crate::prelude::*;

use super::error::ErrorObject;
use super::inbound::valid_id;
use super::value::{Kind, Value};

/// A request's id as the spec allows it (null, a number, a string) and as
/// this side can echo it exactly: [`Id::read`] is the only way to make one,
/// so an id that breaks the rule never reaches a handler or a reply. It
/// keeps the value it came as; `1` and `"1"` are different ids.
#[derive(Clone, Debug, PartialEq)]
pub struct Id<V>(V);

impl<V: Value> Id<V> {
    /// The id `value` (of JSON kind `kind`) is, if it is a valid one (see [`valid_id`]).
    pub fn read(value: V, kind: Kind) -> Option<Self> {
        valid_id(&value, kind).then_some(Id(value))
    }
}

impl<V> Id<V> {
    /// The value to echo.
    pub fn value(&self) -> &V {
        &self.0
    }

    pub fn into_value(self) -> V {
        self.0
    }
}

/// A call that expects a response.
#[derive(Clone, Debug, PartialEq)]
pub struct Request<V> {
    pub id: Id<V>,
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
    pub id: Option<Id<V>>,
    pub payload: Result<V, ErrorObject<V>>,
}

impl<V> Response<V> {
    pub fn error(id: Option<Id<V>>, error: ErrorObject<V>) -> Self {
        Response { id, payload: Err(error) }
    }
}
