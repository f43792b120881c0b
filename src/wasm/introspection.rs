//! Introspection: `listMethods` and
//! `describeMethods` on every server and peer, unless turned off.

use alloc::rc::Rc;

use wasm_bindgen::prelude::*;

use super::binding::Binding;
use super::boundary::{get, keys};

#[wasm_bindgen(module = "/src/wasm/introspection.js")]
extern "C" {
    fn introspection() -> JsValue;
}

/// Registers the two methods; from now on each method registered is recorded
/// with what it says of itself.
pub fn serve(binding: &Rc<Binding>) -> Result<(), JsValue> {
    let catalog = introspection();
    for (name, key) in [("listMethods", keys::LIST), ("describeMethods", keys::DESCRIBE)] {
        binding.register(name, get(&catalog, key), false, &JsValue::UNDEFINED)?;
    }
    *binding.introspection.borrow_mut() = Some(catalog);
    Ok(())
}
