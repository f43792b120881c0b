//! A JS value, named by a `u32` handle into one JS table (abi.js, `vals`),
//! with the core's `Value` answered through numeric imports. Reference counts live here, in
//! linear memory: `Clone` and `Drop` cost no crossing. A handle whose count
//! reaches zero is listed in `FREED`; JS clears those slots once it has
//! carried out the turn's events (so a handle written into an event is still
//! readable when JS reads that event).

use crate::prelude::*;

use wasm_bindgen::prelude::wasm_bindgen;

use super::Global;
use crate::core::{Kind, Value};

// Imported through wasm-bindgen from the package's glue (js/module/abi.js,
// bundled as the module `./wiggum_rpc_glue.js`): numbers only cross.
// (Under `bindings-test`, from the same glue bundled as a snippet: tests.rs.)
#[cfg_attr(not(feature = "bindings-test"), wasm_bindgen(raw_module = "./wiggum_rpc_glue.js"))]
#[cfg_attr(feature = "bindings-test", wasm_bindgen(module = "/target/bindings-test/glue.js"))]
extern "C" {
    /// The kind of value `h` (the core's `Kind` order).
    fn kind(h: u32) -> u32;
    /// `h[name]` as a new handle; 0 when absent or undefined, or `h` is no object.
    fn member(h: u32, name: *const u8, len: usize) -> u32;
    /// The text of a string written at `at` (at most `cap` bytes of UTF-8):
    /// its length; -1 when not a string; -2 - n when it needs `n` bytes.
    fn text(h: u32, at: *mut u8, cap: usize) -> i32;
    /// The number, or NaN when it is not one.
    fn num(h: u32) -> f64;
    /// The number `h[name]` holds, or NaN (`h` no object, no such member, not a number).
    fn num_member(h: u32, name: *const u8, len: usize) -> f64;
    /// 0 or 1, or -1 when not a boolean.
    fn boolean(h: u32) -> i32;
    /// The elements of an array, written as handles at `at` (`len` of them, as
    /// `count` said); `count`: -1 when not an array.
    fn count(h: u32) -> i32;
    fn elements(h: u32, at: *mut u32);
    fn is_v2(h: u32) -> u32;
    fn object_of(name: *const u8, len: usize, value: u32) -> u32;
    fn empty_array() -> u32;
    fn new_number(value: f64) -> u32;
    fn new_string(text: *const u8, len: usize) -> u32;
    fn new_object() -> u32;
    /// `{...h, [name]: value}` (an object) or `h` again, as a new handle.
    fn with_member(h: u32, name: *const u8, len: usize, value: u32) -> u32;
    /// Sets `h[name] = true` (an object this side just made).
    fn set_true(h: u32, name: *const u8, len: usize);
    fn same(a: u32, b: u32) -> u32;
    /// The number of the method name `h` (a string): `n` for one read before,
    /// `-2 - n` for one numbered now (read its text once), -1 for none.
    fn name_of(h: u32) -> i32;
    fn new_null() -> u32;
    /// A thrown error, whole, as plain data (abi.js, `describeError`): a new handle, or 0.
    fn describe(h: u32, stack: u32) -> u32;
    /// Whether `h` survives the transport (a structured clone, or JSON text).
    fn encodable(h: u32) -> u32;
}

/// Reference counts by handle, and the handles whose count reached zero.
pub(super) static COUNTS: Global<Vec<u32>> = Global::new(Vec::new());
pub(super) static FREED: Global<Vec<u32>> = Global::new(Vec::new());
/// Method names the reader has numbered (`name_of`), by number.
static NAMES: Global<Vec<String>> = Global::new(Vec::new());

/// A JS value (never handle 0: that is `undefined`, "none", on the ABI).
#[derive(Debug)]
pub struct Handle(u32);

impl Handle {
    /// A handle JS just put in its table (an export's argument, an import's
    /// result): counted once. 0 is none.
    pub fn adopt(h: u32) -> Option<Handle> {
        if h == 0 {
            return None;
        }
        let counts = COUNTS.get();
        let at = h as usize;
        if counts.len() <= at {
            counts.resize(at + 1 + at / 2, 0);
        }
        counts[at] = 1;
        Some(Handle(h))
    }

    /// A handle an import returned that must be there (a made value).
    fn made(h: u32) -> Handle {
        Handle::adopt(h).unwrap_or_else(|| core::arch::wasm32::unreachable())
    }

    pub fn raw(&self) -> u32 {
        self.0
    }
}

/// The handle of an optional value, for an event (0: none).
pub fn raw(value: &Option<Handle>) -> f64 {
    value.as_ref().map_or(0.0, |h| h.0 as f64)
}

impl Clone for Handle {
    fn clone(&self) -> Handle {
        if let Some(count) = COUNTS.get().get_mut(self.0 as usize) {
            *count += 1;
        }
        Handle(self.0)
    }
}

impl Drop for Handle {
    fn drop(&mut self) {
        if let Some(count) = COUNTS.get().get_mut(self.0 as usize) {
            *count -= 1;
            if *count == 0 {
                FREED.get().push(self.0);
            }
        }
    }
}

impl PartialEq for Handle {
    fn eq(&self, other: &Handle) -> bool {
        self.0 == other.0 || same(self.0, other.0) != 0
    }
}

fn kind_from(n: u32) -> Kind {
    match n {
        0 => Kind::Null,
        1 => Kind::Bool,
        2 => Kind::Number,
        3 => Kind::String,
        4 => Kind::Array,
        5 => Kind::Object,
        _ => Kind::Other,
    }
}

pub fn kind_of_index(n: u32) -> Kind {
    kind_from(n)
}

/// Reads the text of `h` (one crossing when it fits 64 bytes).
pub fn text_of(h: u32) -> Option<String> {
    let mut bytes: Vec<u8> = Vec::with_capacity(64);
    let mut n = text(h, bytes.as_mut_ptr(), bytes.capacity());
    if n <= -2 {
        bytes.reserve((-2 - n) as usize);
        n = text(h, bytes.as_mut_ptr(), bytes.capacity());
    }
    if n < 0 {
        return None;
    }
    unsafe { bytes.set_len(n as usize) };
    // JS wrote it with TextEncoder: UTF-8.
    Some(unsafe { String::from_utf8_unchecked(bytes) })
}

impl Value for Handle {
    fn kind(&self) -> Kind {
        kind_from(kind(self.0))
    }

    fn member(&self, name: &str) -> Option<Self> {
        Handle::adopt(member(self.0, name.as_ptr(), name.len()))
    }

    fn as_text(&self) -> Option<String> {
        text_of(self.0)
    }

    /// A method's name: JS numbers the names it is asked for (abi.js,
    /// `name_of`), so each one's text crosses once.
    fn as_name(&self) -> Option<String> {
        let names = NAMES.get();
        match name_of(self.0) {
            -1 => text_of(self.0),
            known @ 0.. => names.get(known as usize).cloned().or_else(|| text_of(self.0)),
            new => text_of(self.0).inspect(|text| {
                if names.len() == (-2 - new) as usize {
                    names.push(text.clone());
                }
            }),
        }
    }

    fn as_number(&self) -> Option<f64> {
        let n = num(self.0);
        (!n.is_nan()).then_some(n)
    }

    /// One crossing, where `member` then `as_number` took two and a handle.
    fn number_member(&self, name: &str) -> Option<f64> {
        let n = num_member(self.0, name.as_ptr(), name.len());
        (!n.is_nan()).then_some(n)
    }

    fn as_bool(&self) -> Option<bool> {
        match boolean(self.0) {
            0 => Some(false),
            1 => Some(true),
            _ => None,
        }
    }

    fn elements(&self) -> Vec<Self> {
        let n = count(self.0);
        if n <= 0 {
            return Vec::new();
        }
        let mut raw: Vec<u32> = Vec::with_capacity(n as usize);
        elements(self.0, raw.as_mut_ptr());
        // SAFETY: `elements` wrote `n` handles (as `count` said) into the capacity.
        unsafe { raw.set_len(n as usize) };
        raw.into_iter().map(Handle::made).collect()
    }

    fn is_version_2(&self) -> bool {
        is_v2(self.0) != 0
    }

    fn object_of(name: &'static str, value: Self) -> Self {
        Handle::made(object_of(name.as_ptr(), name.len(), value.0))
    }

    fn empty_array() -> Self {
        Handle::made(empty_array())
    }

    fn number(value: f64) -> Self {
        Handle::made(new_number(value))
    }

    fn string(text: &'static str) -> Self {
        Handle::made(new_string(text.as_ptr(), text.len()))
    }

    fn flags<'a>(names: impl Iterator<Item = &'a str>) -> Self {
        let object = Handle::made(new_object());
        for name in names {
            set_true(object.0, name.as_ptr(), name.len());
        }
        object
    }

    fn with_member(&self, name: &'static str, value: Self) -> Self {
        Handle::made(with_member(self.0, name.as_ptr(), name.len(), value.0))
    }
}

impl Handle {
    /// `null`.
    pub fn null() -> Handle {
        Handle::made(new_null())
    }

    /// A thrown value read whole (`describeError`), if it can be.
    pub fn described(&self, stack: bool) -> Option<Handle> {
        Handle::adopt(describe(self.0, u32::from(stack)))
    }

    /// Whether the value survives the transport's encoding.
    pub fn encodable(&self) -> bool {
        encodable(self.0) != 0
    }
}
