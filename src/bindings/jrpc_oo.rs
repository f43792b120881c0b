//! jrpc-oo's handshake (the `jrpcOo` option): `system.listComponents`, by
//! which each side tells the other its methods whenever they change or the
//! connection opens. (Its `{"args": [...]}` params are the core's
//! `Dialect::JrpcOo`.) Its callbacks are the binding's one `signal`
//! (`COMPONENTS`, `ANNOUNCE`, `OPENED`).

use alloc::rc::Rc;

use wasm_bindgen::prelude::*;

use super::binding::Binding;
pub use super::boundary::component_map;
use super::boundary::{self as js, get, ignore_rejection, keys};

/// Answers `system.listComponents` with this side's methods.
pub fn serve_components(binding: &Rc<Binding>) -> Result<(), JsValue> {
    let list = binding.signalling(js::signal::COMPONENTS);
    binding.register("system.listComponents", list.into(), false, &JsValue::UNDEFINED)
}

/// The methods changed: the other side hears of it at the end of the turn.
pub fn components_changed(binding: &Rc<Binding>) {
    if !binding.jrpc_oo || binding.announce_due.replace(true) {
        return;
    }
    js::queue_microtask(&binding.signalling(js::signal::ANNOUNCE));
}

/// Tells the other side this side's methods (the `ANNOUNCE` signal).
pub fn announce(binding: &Rc<Binding>) {
    binding.announce_due.set(false);
    if get(binding.transport(), keys::CONNECTED).as_bool() != Some(true) {
        return; // the `open` event will
    }
    let map = component_map(&binding.method_names());
    let reply = binding.request("system.listComponents".into(), map, None);
    ignore_rejection(&reply);
}
