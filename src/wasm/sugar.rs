//! API sugar over requests and registrations: `remote()` and `expose()`
//! (feature `remote`), `stream()` (feature `streaming`). The JS halves are
//! `remote.js` and `streaming.js`.

use alloc::rc::Rc;

use js_sys::Promise;
use wasm_bindgen::prelude::*;

use super::binding::Binding;
#[cfg(feature = "remote")]
use super::boundary as js;

#[cfg(feature = "remote")]
#[wasm_bindgen(module = "/src/wasm/remote.js")]
extern "C" {
    #[wasm_bindgen(js_name = remoteProxy)]
    fn remote_proxy(request: &js_sys::Function) -> JsValue;
    #[wasm_bindgen(js_name = exposedMethods)]
    fn exposed_methods(instance: &JsValue, name: &str) -> js_sys::Array;
}

#[cfg(feature = "streaming")]
#[wasm_bindgen(module = "/src/wasm/streaming.js")]
extern "C" {
    #[wasm_bindgen(js_name = streamCall)]
    fn stream_call(start: &JsValue, options: &JsValue) -> JsValue;
}

/// A proxy whose calls are requests: see `remoteProxy` in remote.js.
#[cfg(feature = "remote")]
pub fn remote(binding: &Rc<Binding>) -> JsValue {
    let binding = binding.clone();
    let request = Closure::<dyn FnMut(JsValue, JsValue) -> Promise>::new(move |method, args| {
        binding.request(method, args, &JsValue::UNDEFINED)
    });
    remote_proxy(&js::js_function(request))
}

/// Registers an object's public methods as `name.method`.
#[cfg(feature = "remote")]
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
#[cfg(feature = "streaming")]
pub fn stream(binding: &Rc<Binding>, method: JsValue, params: JsValue, options: JsValue) -> JsValue {
    let binding = binding.clone();
    let start = Closure::once_into_js(move |options: JsValue| -> Promise { binding.request(method, params, &options) });
    stream_call(&start, &options)
}
