// Content-Length framing for Node (`wiggum-rpc/framing`, the Node build):
// `FrameDecoder` over the module's decoder (src/bindings/framed.rs),
// `encodeFrame`, and `streamTransport`, a text transport over two Node
// streams (a child process's stdout and stdin).

import { x } from "./abi.js";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

// Writes `bytes` into the module's scratch buffer: their length.
function scratchBytes(bytes) {
  const at = x.$scratch(bytes.length);
  new Uint8Array(x.memory.buffer, at, bytes.length).set(bytes);
  return bytes.length;
}

// The frames `frame_push` decoded: message bodies, or refusals `{ code, message, body }`.
function decoded(n) {
  const words = new Float64Array(x.memory.buffer, x.$frame_words(), n * 6);
  const base = x.$frame_text();
  const text = (at, len) => decoder.decode(new Uint8Array(x.memory.buffer, base + at, len));
  const frames = [];
  for (let i = 0; i < n * 6; i += 6) {
    if (words[i] === 0) frames.push(text(words[i + 2], words[i + 3]));
    else frames.push({ code: words[i + 1], message: text(words[i + 2], words[i + 3]), body: text(words[i + 4], words[i + 5]) });
  }
  return frames;
}

const forget = new FinalizationRegistry((d) => x.$frame_free(d));

/** Incremental Content-Length decoder: feed chunks in any split, take whole message bodies out. */
export class FrameDecoder {
  #d;

  constructor() {
    this.#d = x.$frame_decoder();
    forget.register(this, this.#d, this);
  }

  /** The frames this chunk completes, in order: message bodies (JSON text) or refusals `{ code, message }`. */
  push(chunk) {
    return decoded(x.$frame_push(this.#d, scratchBytes(chunk))).map((frame) =>
      typeof frame === "string" ? frame : { code: frame.code, message: frame.message });
  }

  /** Whether a frame is partly read. */
  get partial() {
    return x.$frame_partial(this.#d) !== 0;
  }

  /** Drops a partly read frame (after a read timeout, say). */
  reset() {
    x.$frame_reset(this.#d);
  }

  /** Lets the decoder go. */
  free() {
    if (this.#d === undefined) return;
    forget.unregister(this);
    x.$frame_free(this.#d);
    this.#d = undefined;
  }
}

/** Frames a message body: `Content-Length: N\r\n\r\n` then its UTF-8 bytes. */
export function encodeFrame(body) {
  const len = x.$encode_frame(scratchBytes(encoder.encode(body)));
  return new Uint8Array(x.memory.buffer, x.$scratch(len), len).slice();
}

/**
 * A text transport speaking Content-Length framing over two streams, e.g.
 * `streamTransport(child.stdout, child.stdin)`. Refused frames are answered
 * with their error; `destroy()` stops reading and ends the writable.
 */
export function streamTransport(readable, writable) {
  const frames = x.$frame_decoder();
  const handlers = [];
  let destroyed = false;
  const onData = (chunk) => {
    for (const frame of decoded(x.$frame_push(frames, scratchBytes(chunk)))) {
      if (typeof frame === "string") for (const handler of [...handlers]) handler(frame);
      // Answered with the body the module wrote (every host of the framing sends the same bytes).
      else writable.write(encodeFrame(frame.body));
    }
  };
  readable.on("data", onData);
  return {
    send(message) {
      if (destroyed) throw new Error("transport destroyed");
      writable.write(encodeFrame(typeof message === "string" ? message : JSON.stringify(message)));
    },
    onMessage(handler) {
      handlers.push(handler);
    },
    offMessage(handler) {
      const at = handlers.indexOf(handler);
      if (at >= 0) handlers.splice(at, 1);
    },
    text: true,
    destroy() {
      if (destroyed) return;
      destroyed = true;
      handlers.length = 0;
      readable.off("data", onData);
      x.$frame_free(frames);
      writable.end();
    },
  };
}
