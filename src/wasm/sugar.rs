//! API sugar over requests and registrations: `remote()`, `expose()` and
//! `stream()`. Their JS halves (`remote.js`, `streaming.js`) make requests
//! through the binding's one `signal` callback (`REQUEST`).

use alloc::rc::Rc;

use wasm_bindgen::prelude::*;

use super::binding::Binding;
use super::boundary as js;

#[wasm_bindgen(module = "/src/wasm/remote.js")]
extern "C" {
    #[wasm_bindgen(js_name = remoteProxy)]
    fn remote_proxy(signal: &js_sys::Function) -> JsValue;
    #[wasm_bindgen(js_name = exposedMethods)]
    fn exposed_methods(instance: &JsValue, name: &str) -> js_sys::Array;
}

#[wasm_bindgen(module = "/src/wasm/streaming.js")]
extern "C" {
    #[wasm_bindgen(js_name = streamCall)]
    fn stream_call(signal: &js_sys::Function, method: JsValue, params: JsValue, options: JsValue) -> JsValue;
}

/// A proxy whose calls are requests: see `remoteProxy` in remote.js.
pub fn remote(binding: &Rc<Binding>) -> JsValue {
    remote_proxy(binding.signal())
}

/// Registers an object's public methods as `name.method`.
pub fn expose(binding: &Rc<Binding>, instance: &JsValue, name: &str) -> Result<(), JsValue> {
    if !instance.is_object() {
        return Err(js::type_error("expose: instance must be an object"));
    }
    for pair in exposed_methods(instance, name).iter() {
        let pair: js_sys::Array = wasm_bindgen::JsCast::unchecked_into(pair);
        let method = pair.get(0).as_string().unwrap_or_default();
        binding.register(&method, pair.get(1), false, &JsValue::UNDEFINED)?;
    }
    Ok(())
}

/// `stream()`: the request as an async iterator of its chunks.
pub fn stream(binding: &Rc<Binding>, method: JsValue, params: JsValue, options: JsValue) -> JsValue {
    stream_call(binding.signal(), method, params, options)
}
