// Types of `wiggum-rpc/stream` (stream.js): importing the entry adds
// `stream()` to the root entry's calling classes, and this declaration to
// their types.
/**
 * Importing this entry adds `stream()` to `Peer` and `JSONRPCClient`: a call's chunks as an async iterator.
 *
 * @module wiggum-rpc/stream
 */

import type { Params, RequestOptions } from "./wiggum_rpc.js";

/** A streamed call: its chunks as an async iterator, its final result beside them. */
export interface StreamedCall<C = unknown, R = unknown> extends AsyncIterable<C> {
  /** The final result; rejects as `request` would (`REQUEST_CANCELLED` once cancelled). */
  readonly result: Promise<R>;
  /**
   * The chunks as a `ReadableStream` (pulled as read; cancelling it cancels
   * the call). Use it or the async iterator, not both.
   */
  readonly readable: ReadableStream<C>;
  /** Cancels the call: `$/cancelRequest` goes out, the handler's signal fires. */
  cancel(reason?: unknown): void;
}

declare module "./wiggum_rpc.js" {
  interface Calls {
    /**
     * A request whose chunks are iterated with `for await` (or read from
     * `readable`); leaving the loop early cancels it. The other side sends at
     * most `options.window` chunks (default 16) ahead of what was read, when
     * it is a wiggum-rpc endpoint: a slow reader slows the producer.
     */
    stream<C = unknown, R = unknown>(method: string, params?: Params, options?: RequestOptions): StreamedCall<C, R>;
  }
}
