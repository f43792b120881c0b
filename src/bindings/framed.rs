//! Content-Length framing for JS (feature `framing`): a decoder for
//! `Uint8Array` chunks, the matching encoder, and a text transport over a pair
//! of Node streams, such as a child process's stdout and stdin.

use crate::prelude::*;

use alloc::rc::{Rc, Weak};
use core::cell::RefCell;

use js_sys::{Array, Function, Object, Uint8Array};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use super::boundary::{keys, Stream};
use crate::core::framing::{encode, refusal_body, Decoder, Frame};
use crate::core::ErrorObject;

#[wasm_bindgen(typescript_custom_section)]
const TYPES: &'static str = r#"
/** A frame the decoder refused: answer it with this error (id null). */
export interface FrameError { code: number; message: string }

/** Incremental Content-Length decoder: feed chunks in any split, take whole message bodies out. */
export class FrameDecoder {
  constructor();
  /** The frames this chunk completes, in order: message bodies (JSON text) or refusals. */
  push(chunk: Uint8Array): (string | FrameError)[];
  /** Whether a frame is partly read. */
  readonly partial: boolean;
  /** Drops a partly read frame (after a read timeout, say). */
  reset(): void;
  free(): void;
}
/** Frames a message body: `Content-Length: N\r\n\r\n` then its UTF-8 bytes. */
export function encodeFrame(body: string): Uint8Array;

/** The parts of a Node stream the transport uses. */
export interface ReadableLike { on(event: "data", listener: (chunk: Uint8Array) => void): unknown; off(event: "data", listener: (chunk: Uint8Array) => void): unknown }
export interface WritableLike { write(chunk: Uint8Array): unknown; end(): unknown }

/**
 * A text transport speaking Content-Length framing over two streams, e.g.
 * `streamTransport(child.stdout, child.stdin)`. Refused frames are answered
 * with their error; `destroy()` stops reading and ends the writable.
 */
export function streamTransport(readable: ReadableLike, writable: WritableLike): RPCTransport & { readonly text: true };
"#;

/// The decoder of the JS API.
#[wasm_bindgen(skip_typescript)]
pub struct FrameDecoder {
    decoder: RefCell<Decoder>,
}

impl Default for FrameDecoder {
    fn default() -> Self {
        FrameDecoder { decoder: RefCell::new(Decoder::new()) }
    }
}

#[wasm_bindgen]
impl FrameDecoder {
    #[wasm_bindgen(constructor)]
    pub fn new() -> FrameDecoder {
        FrameDecoder::default()
    }

    pub fn push(&self, chunk: &[u8]) -> Array {
        let frames = match self.decoder.try_borrow_mut() {
            Ok(mut decoder) => decoder.push(chunk),
            Err(_) => Vec::new(),
        };
        frames.into_iter().map(|frame| frame_value(&frame)).collect()
    }

    #[wasm_bindgen(getter)]
    pub fn partial(&self) -> bool {
        self.decoder.try_borrow().is_ok_and(|d| d.is_partial())
    }

    pub fn reset(&self) {
        if let Ok(mut decoder) = self.decoder.try_borrow_mut() {
            decoder.reset();
        }
    }
}

fn frame_value(frame: &Frame) -> JsValue {
    match frame {
        Frame::Message(text) => JsValue::from_str(text),
        Frame::Error(error) => {
            let object: JsValue = Object::new().into();
            set(&object, keys::CODE, &JsValue::from_f64(error.code as f64));
            set(&object, keys::MESSAGE, &JsValue::from_str(&error.message));
            object
        }
    }
}

#[wasm_bindgen(js_name = encodeFrame, skip_typescript)]
pub fn encode_frame(body: &str) -> Vec<u8> {
    encode(body)
}

struct Streams {
    readable: Stream,
    writable: Stream,
    decoder: RefCell<Decoder>,
    handlers: RefCell<Vec<Function>>,
    on_data: Function,
    destroyed: RefCell<bool>,
}

/// The transport made by `streamTransport`.
#[wasm_bindgen(skip_typescript)]
pub struct StreamTransport {
    streams: Rc<Streams>,
}

#[wasm_bindgen(js_name = streamTransport, skip_typescript)]
pub fn stream_transport(readable: JsValue, writable: JsValue) -> StreamTransport {
    let streams = Rc::new_cyclic(|weak: &Weak<Streams>| {
        let weak = weak.clone();
        let on_data = Closure::<dyn FnMut(Uint8Array)>::new(move |chunk: Uint8Array| {
            if let Some(streams) = weak.upgrade() {
                streams.receive(&chunk.to_vec());
            }
        })
        .into_js_value()
        .unchecked_into();
        Streams {
            readable: readable.unchecked_into(),
            writable: writable.unchecked_into(),
            decoder: RefCell::new(Decoder::new()),
            handlers: RefCell::new(Vec::new()),
            on_data,
            destroyed: RefCell::new(false),
        }
    });
    streams.readable.on("data", &streams.on_data);
    StreamTransport { streams }
}

impl Streams {
    fn receive(&self, chunk: &[u8]) {
        let frames = match self.decoder.try_borrow_mut() {
            Ok(mut decoder) => decoder.push(chunk),
            Err(_) => return,
        };
        for frame in frames {
            match frame {
                Frame::Message(text) => {
                    let message = JsValue::from_str(&text);
                    let handlers = self.handlers.borrow().clone();
                    for handler in handlers {
                        let _ = handler.call1(&JsValue::UNDEFINED, &message);
                    }
                }
                Frame::Error(error) => self.refuse(&error),
            }
        }
    }

    /// Answers a refused frame with its error, id null.
    fn refuse(&self, error: &ErrorObject<()>) {
        let body = refusal_body(error);
        let _ = self.writable.write(&Uint8Array::from(encode(&body).as_slice()));
    }
}

#[wasm_bindgen]
impl StreamTransport {
    /// Sends JSON text (an endpoint on this transport always passes text).
    pub fn send(&self, message: JsValue) -> Result<(), JsValue> {
        if *self.streams.destroyed.borrow() {
            return Err(js_sys::Error::new("transport destroyed").into());
        }
        let body = match message.as_string() {
            Some(text) => text,
            None => js_sys::JSON::stringify(&message)?.as_string().unwrap_or_default(),
        };
        self.streams.writable.write(&Uint8Array::from(encode(&body).as_slice())).map(drop)
    }

    #[wasm_bindgen(js_name = onMessage)]
    pub fn on_message(&self, handler: Function) {
        self.streams.handlers.borrow_mut().push(handler);
    }

    #[wasm_bindgen(js_name = offMessage)]
    pub fn off_message(&self, handler: Function) {
        let handler: &JsValue = &handler;
        self.streams.handlers.borrow_mut().retain(|h| AsRef::<JsValue>::as_ref(h) != handler);
    }

    /// Messages are JSON text.
    #[wasm_bindgen(getter)]
    pub fn text(&self) -> bool {
        true
    }

    pub fn destroy(&self) {
        if core::mem::replace(&mut *self.streams.destroyed.borrow_mut(), true) {
            return;
        }
        self.streams.handlers.borrow_mut().clear();
        self.streams.readable.off("data", &self.streams.on_data);
        let _ = self.streams.writable.end();
    }
}

fn set(target: &JsValue, key: keys::Key, value: &JsValue) {
    key.with(|key| {
        let _ = js_sys::Reflect::set(target, key, value);
    });
}
