//! What the bindings make once and keep: method names read from JS (so a
//! name seen before crosses as a number) and JS strings for property names.

/// Method names read from JS, remembered: every request carries its
/// method's name, and copying a string's text out of JS costs wasm-bindgen's
/// string shim, an allocation call and a copy each time. glue.js maps each
/// remembered string to its number (`nameIndex`); this holds the texts by
/// number. At most `MOST` names of at most `LONGEST` bytes are remembered (a
/// peer that makes up names fills it once, and the rest are read each time).
pub mod names {
    use core::cell::{Cell, OnceCell, RefCell};

    use wasm_bindgen::JsValue;

    use crate::prelude::*;

    const MOST: usize = 512;
    const LONGEST: usize = 64;

    /// The texts by number, the number of this instance's table in glue.js,
    /// and what the reader found of the method being read (see [`expect`]).
    struct Names(RefCell<Vec<String>>, OnceCell<i32>, Cell<i32>);
    // SAFETY: one thread (see `keys`).
    unsafe impl Sync for Names {}
    static NAMES: Names = Names(RefCell::new(Vec::new()), OnceCell::new(), Cell::new(NOT_LOOKED_UP));

    /// No method name was looked up by the reader.
    const NOT_LOOKED_UP: i32 = -3;

    /// The number of this instance's table of names in glue.js.
    pub fn table() -> i32 {
        *NAMES.1.get_or_init(super::super::boundary::name_table)
    }

    /// The reader looked the method up as `nameIndex` would (-2: not a
    /// string; -1: not remembered; else its number): the next name read, the
    /// core's read of that method (it reads no other name), asks JS nothing.
    /// `None`: forget it (the message is done with).
    pub fn expect(index: Option<i32>) {
        NAMES.2.set(index.unwrap_or(NOT_LOOKED_UP));
    }

    pub fn read(value: &JsValue) -> Option<String> {
        let table = table();
        let index = match NAMES.2.replace(NOT_LOOKED_UP) {
            NOT_LOOKED_UP => super::super::boundary::name_index(table, value),
            known => known,
        };
        if index == -2 {
            return None;
        }
        let mut names = NAMES.0.try_borrow_mut().ok();
        if let Some(name) = names.as_ref().and_then(|names| names.get(usize::try_from(index).ok()?)) {
            return Some(name.clone());
        }
        let text = value.as_string()?;
        if let Some(names) = names.as_mut().filter(|names| names.len() < MOST && text.len() <= LONGEST) {
            super::super::boundary::remember_name(table, value, names.len() as f64);
            names.push(text.clone());
        }
        Some(text)
    }
}

/// Interned property names: one JS string each, made once, on first use.
pub mod keys {
    use core::cell::OnceCell;

    use wasm_bindgen::JsValue;

    use crate::prelude::*;

    macro_rules! key {
        ($($name:ident = $text:expr),*) => {
            #[allow(clippy::upper_case_acronyms, non_camel_case_types, dead_code)]
            #[derive(Clone, Copy)]
            pub enum Key { $($name),* }
            pub use Key::*;
            const TEXTS: &[&str] = &[$($text),*];
        };
    }
    key!(
        JSONRPC = "jsonrpc",
        ID = "id",
        METHOD = "method",
        PARAMS = "params",
        RESULT = "result",
        ERROR = "error",
        CODE = "code",
        MESSAGE = "message",
        DATA = "data",
        VERSION = "2.0",
        TRACE = "trace",
        // The methods of the extensions, as the core names them.
        READY_METHOD = crate::core::READY,
        CANCEL_METHOD = crate::core::CANCEL_REQUEST,
        MCP_CANCEL_METHOD = crate::core::MCP_CANCELLED,
        CHUNK_METHOD = crate::core::STREAM_CHUNK,
        END_METHOD = crate::core::STREAM_END,
        CREDIT_METHOD = crate::core::STREAM_CREDIT,
        ACK_METHOD = crate::core::SESSION_ACK,
        PROGRESS_METHOD = crate::core::PROGRESS,
        MCP_PROGRESS_METHOD = crate::core::MCP_PROGRESS,
        CANCEL_ID = crate::core::Cancellation::Lsp.id_member(),
        MCP_CANCEL_ID = crate::core::Cancellation::Mcp.id_member()
    );

    #[cfg(target_feature = "atomics")]
    compile_error!("wiggum-rpc's wasm layer is single-threaded: build without the atomics target feature");

    struct Interned(OnceCell<Vec<JsValue>>);
    // SAFETY: without the atomics target feature (checked above) a wasm
    // module runs on one thread, so the cell is never shared between threads.
    unsafe impl Sync for Interned {}
    static INTERNED: Interned = Interned(OnceCell::new());

    impl Key {
        pub fn with<R>(self, f: impl FnOnce(&JsValue) -> R) -> R {
            let texts = INTERNED.0.get_or_init(|| TEXTS.iter().map(|text| JsValue::from_str(text)).collect());
            f(&texts[self as usize])
        }
    }
}

pub use keys::Key;
