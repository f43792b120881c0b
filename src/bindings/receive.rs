//! What the reader (abi.js) hands over: a message object with its envelope
//! read, a batch member by member, any other value whole, text it refused;
//! and which of this side's calls a message answers (an observer's question).

use crate::prelude::*;
use wasm_bindgen::prelude::wasm_bindgen;

use super::abi::flags;
use super::value::{kind_of_index, text_of, NAMES_READ};
use super::{enter, events, leave, slot, with, Global, Handle};
use crate::core::{Envelope, Framing, Id, IdMember, TextRefusal};

/// The envelope of a message object, as the reader read it (abi.rs's
/// flags); `number` is the id when that is a number.
fn envelope(bits: u32, id: u32, method: u32, params: u32, result: u32, error: u32, number: f64) -> Envelope<Handle> {
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
    }
}

fn framing(bits: u32) -> Framing {
    if bits & flags::TEXT != 0 {
        Framing::Text
    } else {
        Framing::Object
    }
}

/// Method names the reader has seen, by number (a peer may not grow it past `MAX_NAMES`).
static NAMES: Global<Vec<String>> = Global::new(Vec::new());
const MAX_NAMES: usize = 1024;

/// A message object: its envelope as the reader read it. Handles 0: absent.
/// `name`: the number of its method's name (`NAMES`), or -1 when the reader
/// has none for it: then, for a string, returns its new number + 1 (0: none).
#[wasm_bindgen]
#[allow(clippy::too_many_arguments)]
pub fn recv(
    ep: u32,
    bits: u32,
    id: u32,
    method: u32,
    params: u32,
    result: u32,
    error: u32,
    number: f64,
    name: i32,
) -> u32 {
    enter();
    let numbered = read_name(bits, method, name);
    let envelope = envelope(bits, id, method, params, result, error, number);
    if let Some(slot) = slot(ep) {
        slot.core.receive_envelope(envelope, framing(bits));
        NAMES_READ.get().clear();
        events::drain(ep, slot);
    }
    NAMES_READ.get().clear();
    leave();
    numbered
}

/// Puts the method's name of the message being read where the core finds
/// it (`NAMES_READ`): the reader's number for it (`name`), or its text read
/// once (-1, and a method): then numbered if there is room, its number + 1 returned.
fn read_name(bits: u32, method: u32, name: i32) -> u32 {
    let names = NAMES.get();
    let mut numbered = 0;
    let known = match name {
        -1 if bits & flags::METHOD != 0 => text_of(method).inspect(|text| {
            if names.len() < MAX_NAMES {
                names.push(text.clone());
                numbered = names.len() as u32;
            }
        }),
        _ => names.get(name as usize).cloned(),
    };
    if let Some(text) = known {
        NAMES_READ.get().push(method, text);
    }
    numbered
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

/// One member of the batch being read (not an object: its kind alone);
/// `name` and what it returns as `recv`'s.
#[wasm_bindgen]
#[allow(clippy::too_many_arguments)]
pub fn member(
    ep: u32,
    bits: u32,
    id: u32,
    method: u32,
    params: u32,
    result: u32,
    error: u32,
    number: f64,
    name: i32,
) -> u32 {
    let object = bits & flags::KIND == flags::OBJECT;
    let numbered = if object { read_name(bits, method, name) } else { 0 };
    let envelope = object.then(|| envelope(bits, id, method, params, result, error, number));
    if let Some(batch) = slot(ep).and_then(|slot| slot.batch.as_mut()) {
        batch.push(envelope);
    }
    numbered
}

pub(super) fn members_end(ep: u32) {
    with(ep, |slot| {
        if let Some(batch) = slot.batch.take() {
            slot.core.receive_members(batch);
        }
        NAMES_READ.get().clear();
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
