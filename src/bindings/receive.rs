//! What the reader (abi.js) hands over: a message object with its envelope
//! read, a batch member by member, any other value whole, text it refused;
//! and which of this side's calls a message answers (an observer's question).

use crate::prelude::*;
use wasm_bindgen::prelude::wasm_bindgen;

use super::abi::flags;
use super::value::kind_of_index;
use super::{enter, events, leave, slot, with, Global, Handle};
use crate::core::{Envelope, Framing, Id, IdMember, TextRefusal};

/// The envelope of a message object, as the reader read it (abi.rs's
/// flags); `number` is the id when that is a number.
fn envelope(bits: u32, id: u32, method: u32, params: u32, result: u32, error: u32, number: f64) -> Envelope<Handle> {
    // The message's metadata, told just before it (`meta`).
    let meta = META.get().take();
    let id = match (bits >> flags::ID_SHIFT) & 7 {
        0 => {
            drop(Handle::adopt(id));
            IdMember::Absent
        }
        kind => match Handle::adopt(id) {
            // A numeric id with the number the reader read along with it.
            Some(id) if kind == 3 => Id::number(id, number).into(),
            Some(id) => Id::read(id, kind_of_index(kind - 1)).into(),
            None => IdMember::Invalid,
        },
    };
    let params_kind = (bits >> flags::PARAMS_SHIFT) & 7;
    Envelope {
        version_2: bits & flags::VERSION_2 != 0,
        id,
        method: Handle::adopt(method).filter(|_| bits & flags::METHOD != 0),
        params: Handle::adopt(params).map(|p| (p, kind_of_index(params_kind.saturating_sub(1)))),
        result: Handle::adopt(result).filter(|_| bits & flags::RESULT != 0),
        error: Handle::adopt(error).filter(|_| bits & flags::ERROR != 0),
        meta,
    }
}

fn framing(bits: u32) -> Framing {
    if bits & flags::TEXT != 0 {
        Framing::Text
    } else {
        Framing::Object
    }
}

/// The `meta` of the message (or batch member) the reader hands over next:
/// an object it saw there. Told apart, so a message without one costs nothing.
static META: Global<Option<Handle>> = Global::new(None);

/// Metadata `h`, told with the clock's reading as its message arrived
/// (whole milliseconds): the deadline it may carry counts from then.
pub(super) fn meta(ep: u32, now: u32, h: u32) {
    *META.get() = Handle::adopt(h);
    if let Some(slot) = slot(ep) {
        slot.core.arrived_at(now.into());
    }
}

/// A message object: its envelope as the reader read it. Handles 0: absent.
#[wasm_bindgen]
#[allow(clippy::too_many_arguments)]
pub fn recv(ep: u32, bits: u32, id: u32, method: u32, params: u32, result: u32, error: u32, number: f64) {
    enter();
    let envelope = envelope(bits, id, method, params, result, error, number);
    if let Some(slot) = slot(ep) {
        slot.core.receive_envelope(envelope, framing(bits));
        events::drain(ep, slot);
    }
    leave();
}

/// Any other value (a batch read whole, a string, a number): the core asks it.
pub(super) fn recv_value(ep: u32, h: u32, bits: u32) {
    let value = Handle::adopt(h);
    with(ep, |slot| match &value {
        Some(value) => slot.core.receive(value, framing(bits)),
        None => slot.core.receive_refused(TextRefusal::NotText),
    });
}

/// Text not read as a message: 0 not JSON, 1 too large, 2 too deep, 3 not text.
pub(super) fn recv_refused(ep: u32, why: u32) {
    with(ep, |slot| {
        slot.core.receive_refused(match why {
            1 => TextRefusal::TooLarge,
            2 => TextRefusal::TooDeep,
            3 => TextRefusal::NotText,
            _ => TextRefusal::NotJson,
        })
    });
}

/// A batch of `len` (`packed`: one that came in the packed form): 1 when
/// its members come one by one (`member`, then `members_end`); 0 when it
/// should come whole (`recv_value`; a packed one as the array it stands for).
pub(super) fn batch_begin(ep: u32, len: u32, packed: bool) -> u32 {
    let Some(slot) = slot(ep) else { return 0 };
    let len = len as usize;
    if !(match packed {
        true => slot.core.takes_packed(len),
        false => slot.core.takes_batch(len),
    }) {
        return 0;
    }
    slot.batch = Some(Vec::with_capacity(len));
    1
}

/// One member of the batch being read (not an object: its kind alone).
#[wasm_bindgen]
#[allow(clippy::too_many_arguments)]
pub fn member(ep: u32, bits: u32, id: u32, method: u32, params: u32, result: u32, error: u32, number: f64) {
    let envelope =
        (bits & flags::KIND == flags::OBJECT).then(|| envelope(bits, id, method, params, result, error, number));
    if let Some(batch) = slot(ep).and_then(|slot| slot.batch.as_mut()) {
        batch.push(envelope);
    }
}

pub(super) fn members_end(ep: u32) {
    with(ep, |slot| {
        if let Some(batch) = slot.batch.take() {
            slot.core.receive_members(batch);
        }
    });
}

/// Which of this side's calls a message answers (an observer's question): its id, or 0.
#[wasm_bindgen]
#[allow(clippy::too_many_arguments)]
pub fn answers(ep: u32, bits: u32, id: u32, method: u32, params: u32, result: u32, error: u32, number: f64) -> f64 {
    let envelope = envelope(bits, id, method, params, result, error, number);
    let found = slot(ep).and_then(|slot| slot.core.answers(envelope, framing(bits)));
    leave();
    found.map_or(0.0, |id| id as f64)
}
