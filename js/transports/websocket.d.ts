// Types of `wiggum-rpc/websocket` (websocket.js): the root entry's glue is
// the module beside this file in every build.
/**
 * `webSocketTransport`: a page and its server over WebSocket (browsers and Node), with reconnect.
 *
 * @module wiggum-rpc/websocket
 */

import type { Transport, TransportEvent, TransportEvents } from "./wiggum_rpc.js";
/** When and how often a WebSocket transport redials. */
export interface ReconnectOptions {
  /** The wait before the first attempt, in ms (1000). */
  initialDelay?: number;
  /** The longest wait, in ms (15000). */
  maxDelay?: number;
  /** Each wait is this many times the one before (2). */
  factor?: number;
  /** The random share of each wait, 0 to 1 (0.2): waits only get shorter. */
  jitter?: number;
  /** Attempts before giving up (no limit). */
  maxAttempts?: number;
}
export interface WebSocketTransportOptions {
  /** Reopen a lost connection: `true` for 1 s, 2 s, 4 s, 8 s, then 15 s between attempts. */
  reconnect?: boolean | ReconnectOptions;
  /**
   * With `reconnect`: ask the server for a resumable session (the default),
   * so that toward a hub that keeps sessions no call is lost when the
   * connection drops. `false`: every call in flight fails with the connection.
   */
  resume?: boolean;
  /**
   * `"announce"`: say hello (`$/ready`) when the connection opens, as the
   * postMessage transports do, so that a wiggum-rpc server's answer tells
   * what it takes: calls' metadata (a trace context, an auth token, a
   * deadline) then crosses, and bursts go as batches. A server of another
   * library gets one notification it ignores. (A transport that reconnects
   * and resumes says hello anyway.) `"wait"`: the same, and calls wait for
   * the server's answer, so that even the first carries its metadata (only
   * toward a wiggum-rpc server: another never answers).
   */
  handshake?: "announce" | "wait";
  /** The constructor to dial with (Node 20 has no global WebSocket: pass `ws`'s). */
  WebSocket?: new (url: string, protocols?: string | string[]) => unknown;
  protocols?: string | string[];
}
/** A transport made by `webSocketTransport`, on the package's `Transport` base. */
export interface WebSocketTransport extends Transport {
  send(message: string): void;
  on<E extends TransportEvent>(event: E, listener: (detail: TransportEvents[E]) => void): () => void;
  /** Closes the socket (1000) and stops reconnecting. */
  destroy(): void;
  readonly text: true;
  /** 60000: a server may take its time. */
  readonly defaultTimeout: number;
  /** Whether the socket is open now. */
  readonly connected: boolean;
  /** Messages waiting for the connection to open. */
  readonly queued: number;
  /** A server's side: carry on over `socket` (a client's new connection to the same session). */
  adopt(socket: object): void;
}
/**
 * JSON-RPC over a WebSocket, as JSON text frames: by URL, or around a socket
 * (a browser WebSocket or one of the `ws` package's, client or server side).
 */
export function webSocketTransport(
  urlOrSocket: string | WebSocket | object,
  options?: WebSocketTransportOptions,
): WebSocketTransport;
