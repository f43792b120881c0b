//! References' exports (feature `references`): what the entry that keeps
//! their objects asks of an endpoint (introductions, releases, the next
//! call's or result's `refs`, the bound an endpoint opens with); the core
//! keeps every rule.

use crate::prelude::*;
use wasm_bindgen::prelude::wasm_bindgen;

use super::value::Handle;
use super::{enter, leave, slot, with, Global};
use crate::core::Value;

/// `limits.maxReferences` of the next endpoint `open` opens (below 1: the default).
pub(super) static MAX_REFERENCES: Global<f64> = Global::new(0.0);

/// The bound of the next endpoint opened (its `open` comes next).
pub(super) fn max_references(n: f64) {
    *MAX_REFERENCES.get() = n;
}

/// The next call, notification or result endpoint `ep` makes carries `refs`
/// (handle `h`, `[[id, path], …]`) beside its params or result.
pub(super) fn refs(ep: u32, h: u32) {
    if let Some(slot) = slot(ep) {
        slot.refs = Handle::adopt(h);
    }
}

/// Before a message with references: `new` targets introduced for the first
/// time, the export ids of handle `again` once more, the peer's ids of
/// handle `back` passed back. The first new id (the others follow it), or
/// the code of the refusal, its message in the scratch buffer.
#[wasm_bindgen]
pub fn export_refs(ep: u32, new: u32, again: u32, back: u32) -> f64 {
    enter();
    let ids = |h: u32| -> Vec<u32> {
        let list = Handle::adopt(h).map_or_else(Vec::new, |list| list.elements());
        list.iter().filter_map(Value::as_number).map(|n| n as u32).collect()
    };
    let (again, back) = (ids(again), ids(back));
    let answer = match slot(ep) {
        Some(slot) => match slot.core.export(new, &again, &back) {
            Ok(first) => f64::from(first),
            Err(error) => super::calls::refusal(&error),
        },
        None => -1.0,
    };
    leave();
    answer
}

/// This side dropped `count` stubs of the peer's reference `id`.
pub(super) fn release(ep: u32, id: u32, count: u32) {
    with(ep, |slot| slot.core.release(id, count));
}

/// The targets of this side's the peer holds × 2³², plus the stubs of the
/// peer's this side holds.
pub(super) fn references_held(ep: u32) -> f64 {
    slot(ep).map_or(0.0, |slot| {
        let (exports, stubs) = slot.core.references_held();
        exports as f64 * 4_294_967_296.0 + stubs as f64
    })
}
