//! Introspection: `listMethods`, `describeMethods` and OpenRPC's
//! `rpc.discover` on every server and peer once `wiggum-rpc/introspection`
//! is imported, unless turned off.

use alloc::rc::Rc;

use wasm_bindgen::prelude::*;

use super::binding::Binding;
use super::boundary::{get, introspection, keys};

/// Registers the two methods; from now on each method registered is recorded
/// with what it says of itself.
/// `openrpc` is the endpoint's option of that name (the document's `info`, a
/// JSON Schema converter).
pub fn serve(binding: &Rc<Binding>, openrpc: &JsValue) -> Result<(), JsValue> {
    let catalog = introspection(openrpc);
    if catalog.is_undefined() {
        return Ok(()); // not imported
    }
    for (name, key) in
        [("listMethods", keys::LIST), ("describeMethods", keys::DESCRIBE), ("rpc.discover", keys::DISCOVER)]
    {
        binding.register(name, get(&catalog, key), false, &JsValue::UNDEFINED)?;
    }
    *binding.introspection.borrow_mut() = Some(catalog);
    Ok(())
}
