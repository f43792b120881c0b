// The Node build's framing (`wiggum-rpc/framing`: js/module/framing.js), appended to its
// `wiggum_rpc.d.ts` by scripts/glue.mjs (without this header and its import).
import type { RPCTransport } from "./wiggum_rpc.js";

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
