//! The platform a Peer runs on: the clock, timers, and what `js/platform.js`
//! does (early messages, presence by Web Locks, a frame's load) through
//! wasm-bindgen imports.

use js_sys::{Array, Function};

use wasm_bindgen::prelude::*;
use web_sys::AbortSignal;

#[wasm_bindgen(module = "/js/platform.js")]
extern "C" {
    #[wasm_bindgen(js_name = takeEarly)]
    pub(crate) fn take_early(scope: &JsValue) -> Array;
    #[wasm_bindgen(js_name = holdPresence)]
    pub(crate) fn hold_presence(signal: &AbortSignal) -> Option<String>;
    #[wasm_bindgen(js_name = watchPresence)]
    pub(crate) fn watch_presence(name: &str, signal: &AbortSignal, on_gone: &Function);
    #[wasm_bindgen(js_name = frameLoaded)]
    pub(crate) fn frame_loaded(target: &JsValue) -> bool;
}

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(js_namespace = performance, js_name = now)]
    fn performance_now() -> f64;
    /// `setTimeout(callback, ms, which)`: `which` is handed to the callback.
    #[wasm_bindgen(js_name = setTimeout)]
    pub(crate) fn set_timeout(callback: &Function, ms: f64, which: u32) -> f64;
    #[wasm_bindgen(js_name = clearTimeout)]
    pub(crate) fn clear_timeout(handle: f64);
}

/// Milliseconds on the page's monotonic clock: the core's `Deadline`s.
pub(crate) fn now() -> u64 {
    performance_now() as u64
}
