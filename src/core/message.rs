//! The message model: requests, notifications and responses, as the spec
//! names them, and their ids. Ids and payloads are values of the caller's
//! type and are echoed exactly: the core never rebuilds an id it was given.

use crate::prelude::*;

use super::error::ErrorObject;
use super::value::{Kind, Value};

/// The largest integer a double holds exactly, with every integer below it (2^53 − 1).
pub(crate) const MAX_SAFE_INTEGER: f64 = 9_007_199_254_740_991.0;

/// Whether a double is a number JSON carries and reads back as itself: finite,
/// and not beyond 2^53 (every double there is an integer whose text the
/// parse may have rounded).
pub fn exact_double(n: f64) -> bool {
    (-MAX_SAFE_INTEGER..=MAX_SAFE_INTEGER).contains(&n)
}

/// A request's id as the spec allows it (null, a number, a string) and as
/// this side can echo it exactly: [`Id::read`] and [`Id::number`] are the
/// only ways to make one, so an id that breaks the rule never reaches a
/// handler or a reply. It keeps the value it came as; `1` and `"1"` are
/// different ids.
///
/// A number is an id only if this side holds it as it came
/// ([`Value::is_exact_number`]): `NaN` and `±Infinity` (a structured clone
/// carries them) are refused; so, in JS, is an integer past 2^53, which
/// `JSON.parse` rounds (`9007199254740993` would come back as `…992`,
/// another call's id).
///
/// A numeric id keeps its number too (read along with it by a host that
/// reads envelopes, or asked once): matching an answer to a call needs it,
/// and asking a JS value for it again would cost a crossing per answer.
#[derive(Clone, Debug, PartialEq)]
pub struct Id<V>(V, Option<f64>);

impl<V: Value> Id<V> {
    /// The id `value` (of JSON kind `kind`) is, if it is a valid one.
    pub fn read(value: V, kind: Kind) -> Option<Self> {
        match kind {
            Kind::Null | Kind::String => Some(Id(value, None)),
            Kind::Number => {
                // Asked once; a host may hold exactly what no double does (serde_json's u64).
                let number = value.as_number();
                match number.is_some_and(exact_double) || value.is_exact_number() {
                    true => Some(Id(value, number)),
                    false => None,
                }
            }
            _ => None,
        }
    }
}

impl<V> Id<V> {
    /// A numeric id whose number the host read along with it (the wasm
    /// layer's envelope reader does), so the value need not be asked.
    pub fn number(value: V, number: f64) -> Option<Self> {
        match exact_double(number) {
            true => Some(Id(value, Some(number))),
            false => None,
        }
    }

    /// The id's number, if it is a number.
    pub fn as_number(&self) -> Option<f64> {
        self.1
    }

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
    /// Its metadata (`"meta"`, an object), from a peer both sides told they
    /// take it: a trace context, an idempotency key, the time left. Data,
    /// never trusted for anything unless the host checks it.
    pub meta: Option<V>,
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
    /// `[[id, path], …]`: where a result this side sends holds references.
    #[cfg(feature = "references")]
    pub refs: Option<V>,
}

impl<V> Response<V> {
    pub fn error(id: Option<Id<V>>, error: ErrorObject<V>) -> Self {
        Response {
            id,
            payload: Err(error),
            #[cfg(feature = "references")]
            refs: None,
        }
    }
}
