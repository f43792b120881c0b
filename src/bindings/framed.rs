//! Content-Length framing for JS (feature `framing`, the Node build): the
//! core's incremental decoder behind numbers, and its encoder. The classes
//! (`FrameDecoder`, `encodeFrame`, `streamTransport`) are JS: js/module/framing.js.

use crate::prelude::*;
use wasm_bindgen::prelude::wasm_bindgen;

use super::{leave, scratch_bytes, Global, SCRATCH};
use crate::core::framing::{encode, refusal_body, Decoder, Frame};

static DECODERS: Global<Vec<Option<Decoder>>> = Global::new(Vec::new());
/// What the last `frame_push` decoded: six words a frame (`frame_push`).
static FRAMES: Global<Vec<f64>> = Global::new(Vec::new());
/// The frames' text.
static TEXT: Global<Vec<u8>> = Global::new(Vec::new());

fn decoder(d: u32) -> Option<&'static mut Decoder> {
    DECODERS.get().get_mut(d as usize)?.as_mut()
}

fn text(text: &str) -> [f64; 2] {
    let t = TEXT.get();
    let at = t.len();
    t.extend_from_slice(text.as_bytes());
    [at as f64, text.len() as f64]
}

/// A new decoder: its number.
#[wasm_bindgen]
pub fn frame_decoder() -> u32 {
    let decoders = DECODERS.get();
    let at = decoders.iter().position(Option::is_none).unwrap_or_else(|| {
        decoders.push(None);
        decoders.len() - 1
    });
    decoders[at] = Some(Decoder::new());
    at as u32
}

/// Feeds decoder `d` the scratch buffer's first `len` bytes: how many frames
/// they complete, each six words at `frame_words()`: 0 a message (its text
/// at words 2, 3 as offset and length in `frame_text()`), or 1 a refusal
/// (word 1 its code, 2-3 its message, 4-5 the body that answers it).
#[wasm_bindgen]
pub fn frame_push(d: u32, len: usize) -> u32 {
    let frames = FRAMES.get();
    frames.clear();
    TEXT.get().clear();
    let chunk = scratch_bytes(len);
    let decoded = decoder(d).map(|decoder| decoder.push(chunk)).unwrap_or_default();
    for frame in &decoded {
        match frame {
            Frame::Message(body) => {
                let [at, n] = text(body);
                frames.extend_from_slice(&[0.0, 0.0, at, n, 0.0, 0.0]);
            }
            Frame::Error(error) => {
                let [at, n] = text(&error.message);
                let [body_at, body_n] = text(&refusal_body(error));
                frames.extend_from_slice(&[1.0, error.code as f64, at, n, body_at, body_n]);
            }
        }
    }
    leave();
    decoded.len() as u32
}

#[wasm_bindgen]
pub fn frame_words() -> *const f64 {
    FRAMES.get().as_ptr()
}

#[wasm_bindgen]
pub fn frame_text() -> *const u8 {
    TEXT.get().as_ptr()
}

/// Whether decoder `d` has a frame partly read.
#[wasm_bindgen]
pub fn frame_partial(d: u32) -> u32 {
    decoder(d).map_or(0, |decoder| u32::from(decoder.is_partial()))
}

/// Drops decoder `d`'s partly read frame.
#[wasm_bindgen]
pub fn frame_reset(d: u32) {
    if let Some(decoder) = decoder(d) {
        decoder.reset();
    }
}

/// Forgets decoder `d`.
#[wasm_bindgen]
pub fn frame_free(d: u32) {
    if let Some(slot) = DECODERS.get().get_mut(d as usize) {
        *slot = None;
    }
}

/// Frames the body in the scratch buffer's first `len` bytes: the frame's
/// length, written at the scratch buffer's address.
#[wasm_bindgen]
pub fn encode_frame(len: usize) -> u32 {
    let body = super::owned(scratch_bytes(len));
    let frame = encode(&body);
    let s = SCRATCH.get();
    s.clear();
    s.extend_from_slice(&frame);
    leave();
    frame.len() as u32
}
