//! The core's view of a JS value: its JSON kind and a few members, read in
//! place. Payloads are never converted or copied: what a handler returns is
//! the very value posted.

use js_sys::{Array, Object, Reflect};
use wasm_bindgen::JsValue;
use wiggum_rpc::core::{Kind, Value};

/// A JS value as the core sees it (a newtype: the trait and `JsValue` are
/// both another crate's).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Js(pub JsValue);

impl Js {
    fn object() -> Object {
        Object::new()
    }

    fn set(object: &Object, name: &str, value: &JsValue) {
        // A fresh plain object: setting a data member cannot fail.
        let _ = Reflect::set(object, &JsValue::from_str(name), value);
    }
}

impl Value for Js {
    fn kind(&self) -> Kind {
        let value = &self.0;
        if value.is_null() {
            Kind::Null
        } else if value.as_bool().is_some() {
            Kind::Bool
        } else if value.as_f64().is_some() {
            Kind::Number
        } else if value.is_string() {
            Kind::String
        } else if Array::is_array(value) {
            Kind::Array
        } else if value.is_object() {
            Kind::Object
        } else {
            // undefined, a function, a symbol, a bigint.
            Kind::Other
        }
    }

    fn member(&self, name: &str) -> Option<Self> {
        if !self.0.is_object() {
            return None;
        }
        // A getter that throws (a proxy's) reads as absent.
        let member = Reflect::get(&self.0, &JsValue::from_str(name)).ok()?;
        (!member.is_undefined()).then_some(Js(member))
    }

    fn as_text(&self) -> Option<String> {
        self.0.as_string()
    }

    fn as_number(&self) -> Option<f64> {
        self.0.as_f64()
    }

    fn as_bool(&self) -> Option<bool> {
        self.0.as_bool()
    }

    fn elements(&self) -> Vec<Self> {
        match Array::is_array(&self.0) {
            true => Array::from(&self.0).iter().map(Js).collect(),
            false => Vec::new(),
        }
    }

    fn object_of(name: &'static str, value: Self) -> Self {
        let object = Self::object();
        Self::set(&object, name, &value.0);
        Js(object.into())
    }

    fn empty_array() -> Self {
        Js(Array::new().into())
    }

    fn number(value: f64) -> Self {
        Js(JsValue::from_f64(value))
    }

    fn string(text: &'static str) -> Self {
        Js(JsValue::from_str(text))
    }

    fn flags<'a>(names: impl Iterator<Item = &'a str>) -> Self {
        let object = Self::object();
        for name in names {
            Self::set(&object, name, &JsValue::TRUE);
        }
        Js(object.into())
    }

    fn with_member(&self, name: &'static str, value: Self) -> Self {
        if self.kind() != Kind::Object {
            return self.clone();
        }
        let copy = Object::assign(&Self::object(), self.0.unchecked_ref());
        Self::set(&copy, name, &value.0);
        Js(copy.into())
    }
}

use wasm_bindgen::JsCast;
