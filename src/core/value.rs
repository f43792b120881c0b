//! What the core may ask of a payload value: its JSON kind and a few envelope
//! members. Everything else about a value stays opaque.

use crate::prelude::*;

/// The JSON type of a value, as far as the envelope rules care.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Null,
    Bool,
    Number,
    String,
    Array,
    Object,
    /// Not expressible in JSON (`undefined`, a function, a symbol, a bigint).
    Other,
}

/// A value the core can inspect without converting it.
///
/// Implementations must never fail or panic: a value that cannot answer a
/// question answers `None`.
pub trait Value: Clone {
    /// The value's JSON kind.
    fn kind(&self) -> Kind;
    /// A member of an object; `None` when absent (or `undefined`) or when the
    /// value is not an object.
    fn member(&self, name: &str) -> Option<Self>;
    /// The text of a string value (`None` for anything else).
    fn as_text(&self) -> Option<String>;
    /// The text of a method's name. Names recur (every request carries
    /// one), so a host whose strings are costly to read may remember them.
    fn as_name(&self) -> Option<String> {
        self.as_text()
    }
    /// The numeric value of a number.
    fn as_number(&self) -> Option<f64>;
    /// The number member `name` of an object holds (`None`: no object, no
    /// such member, or not a number). A host whose values cost a call each
    /// to ask may answer it in one.
    fn number_member(&self, name: &str) -> Option<f64> {
        self.member(name)?.as_number()
    }
    /// Whether this is a number JSON can carry that the host holds exactly
    /// as it came (see [`Id`](crate::core::Id)).
    fn is_exact_number(&self) -> bool {
        self.as_number().is_some_and(super::message::exact_double)
    }
    /// The value of a boolean.
    fn as_bool(&self) -> Option<bool>;
    /// The elements of an array (empty for anything else).
    fn elements(&self) -> Vec<Self>;
    /// Whether this is exactly the string `"2.0"`.
    fn is_version_2(&self) -> bool {
        self.as_text().as_deref() == Some("2.0")
    }
    /// An object of one member, `{ name: value }` (the jrpc-oo dialect
    /// wraps positional params so).
    fn object_of(name: &'static str, value: Self) -> Self;
    /// An empty array.
    fn empty_array() -> Self;
    /// A number.
    fn number(value: f64) -> Self;
    /// A string (the protocol's own method names).
    fn string(text: &'static str) -> Self;
    /// An object with a member `true` for each of `names` (jrpc-oo's map of
    /// the methods a side serves, `{"Class.method": true}`).
    fn flags<'a>(names: impl Iterator<Item = &'a str>) -> Self;
    /// A copy of this object with `name` set to `value` (the original is
    /// the caller's: it stays as it was). Anything else comes back as it is.
    fn with_member(&self, name: &'static str, value: Self) -> Self;
}

// A member read for its number, text or boolean, in one place each: the
// protocol's own notifications and the hello ask a dozen of them, and each
// asked inline is a call, its checks and the member's drop.

/// The number `object[name]` holds (`None`: no object, no such member, or not a number).
#[inline(never)]
pub(crate) fn number_of<V: Value>(object: Option<&V>, name: &str) -> Option<f64> {
    object?.number_member(name)
}

/// The text `object[name]` holds (`None`: no object, no such member, or not a string).
#[inline(never)]
pub(crate) fn text_of<V: Value>(object: Option<&V>, name: &str) -> Option<String> {
    object?.member(name)?.as_text()
}

/// The boolean `object[name]` holds (`None`: no object, no such member, or not a boolean).
#[inline(never)]
pub(crate) fn bool_of<V: Value>(object: Option<&V>, name: &str) -> Option<bool> {
    object?.member(name)?.as_bool()
}

#[cfg(not(target_arch = "wasm32"))]
impl Value for serde_json::Value {
    fn kind(&self) -> Kind {
        match self {
            serde_json::Value::Null => Kind::Null,
            serde_json::Value::Bool(_) => Kind::Bool,
            serde_json::Value::Number(_) => Kind::Number,
            serde_json::Value::String(_) => Kind::String,
            serde_json::Value::Array(_) => Kind::Array,
            serde_json::Value::Object(_) => Kind::Object,
        }
    }

    fn member(&self, name: &str) -> Option<Self> {
        self.as_object()?.get(name).cloned()
    }

    fn as_text(&self) -> Option<String> {
        self.as_str().map(str::to_owned)
    }

    fn as_number(&self) -> Option<f64> {
        self.as_f64()
    }

    fn as_bool(&self) -> Option<bool> {
        serde_json::Value::as_bool(self)
    }

    /// `serde_json` holds every 64-bit integer exactly; a larger one, or a
    /// fraction, it holds as a double.
    fn is_exact_number(&self) -> bool {
        self.is_i64() || self.is_u64() || self.as_f64().is_some_and(super::message::exact_double)
    }

    fn elements(&self) -> Vec<Self> {
        self.as_array().cloned().unwrap_or_default()
    }

    fn is_version_2(&self) -> bool {
        self.as_str() == Some("2.0")
    }

    fn object_of(name: &'static str, value: Self) -> Self {
        serde_json::Value::Object([(name.to_owned(), value)].into_iter().collect())
    }

    fn empty_array() -> Self {
        serde_json::Value::Array(Vec::new())
    }

    fn number(value: f64) -> Self {
        match value.fract() == 0.0 && value.abs() < 9.0e15 {
            true => serde_json::Value::from(value as i64),
            false => serde_json::Number::from_f64(value).map_or(serde_json::Value::Null, serde_json::Value::Number),
        }
    }

    fn string(text: &'static str) -> Self {
        serde_json::Value::from(text)
    }

    fn flags<'a>(names: impl Iterator<Item = &'a str>) -> Self {
        serde_json::Value::Object(names.map(|name| (name.to_owned(), serde_json::Value::Bool(true))).collect())
    }

    fn with_member(&self, name: &'static str, value: Self) -> Self {
        let mut copy = self.clone();
        if let Some(object) = copy.as_object_mut() {
            object.insert(name.to_owned(), value);
        }
        copy
    }
}
