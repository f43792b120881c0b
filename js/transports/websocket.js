// The WebSocket transport, the package's `wiggum-rpc/websocket` entry: JSON
// text frames over a browser `WebSocket` or a socket of Node's `ws` package,
// lifecycle events, an outbox while not connected, and reconnection on the
// schedule the core's `Backoff` computes (`reconnectDelay`, websocket.rs).
//
// It is not imported by the module, so a page that never opens a WebSocket
// does not carry it; it imports the root entry (the glue beside it in every
// build: `./wiggum_rpc.js`) for the transports' base class and the schedule.
//
// A frame is handed to the endpoint as the string it arrived as: the
// endpoint's envelope reader parses it once. Only a connection that was open
// emits `close` (and the endpoint then rejects the calls sent over it);
// attempts that never opened only lead to the next attempt, so calls made
// while reconnecting wait for the new connection.
//
// A transport that reconnects asks its server for a resumable session
// (`session`, read by the endpoint; the rules are the core's): toward a
// server that grants one, a dropped connection loses no call, and `close`
// says `final: true` only when no other connection will follow. A server of
// many clients moves a client's new socket into the transport that carries
// its session (`adopt`).

import { Transport, reconnectDelay } from "./wiggum_rpc.js";

const OPEN = 1;

class WebSocketTransport extends Transport {
  /** JSON text, and a server may take its time: 60 s per call by default. */
  text = true;
  defaultTimeout = 60_000;
  /** How to open the next connection, or undefined when reconnecting is off. */
  #redial;
  #socket;
  #unwatch;
  #open = false;
  /** The current connection was open at some point (losing it is a `close`). */
  #wasOpen = false;
  /** Some connection was open before (opening again is `reconnected`). */
  #everOpen = false;
  /** Reconnect attempts since the last open connection. */
  #attempt = 0;
  #timer;
  /** Text sent while not connected. */
  #outbox = [];

  constructor(socket, redial, resume, announce) {
    super();
    this.#redial = redial;
    if (redial !== undefined && resume) {
      // Hello first, asking for a session; the socket keeps it until it opens.
      this.session = "client";
      this.handshake = "announce";
    }
    // A hello without a session: what the server takes (metadata, batches) is learnt from its answer;
    // "wait": calls wait for it.
    if (announce) this.handshake = announce;
    this.#watch(socket);
  }

  /**
   * Takes `socket` (a client's new connection) in place of this transport's
   * own, which is closed: how a server resumes a session on a new connection.
   */
  adopt(socket) {
    if (this.destroyed) throw new Error("transport destroyed");
    const old = this.#socket;
    this.#drop();
    this.#open = false;
    if (old !== undefined && old !== socket) {
      try {
        old.close(4000, "session resumed on another connection");
      } catch {
        // Gone already.
      }
    }
    this.#watch(socket);
  }

  /**
   * Sends a text frame, or queues it until the connection opens. Throws once
   * the connection is closed for good (or the transport destroyed).
   */
  send(message) {
    if (typeof message !== "string") throw new TypeError("WebSocket messages are JSON text");
    if (this.destroyed) throw new Error("transport destroyed");
    if (this.#open) this.#socket.send(message);
    else if (this.#socket === undefined && this.#timer === undefined) throw new Error("WebSocket is closed");
    else this.#outbox.push(message);
  }

  /** Whether the socket is open now. */
  get connected() {
    return this.#open;
  }

  /** Messages waiting for the connection to open. */
  get queued() {
    return this.#outbox.length;
  }

  /** Closes the socket (code 1000), stops reconnecting, drops what is queued. */
  release() {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#outbox = [];
    this.#open = false;
    const socket = this.#socket;
    this.#drop();
    try {
      socket?.close(1000);
    } catch {
      // Closing a socket that never opened may throw in some implementations: it is gone either way.
    }
  }

  #watch(socket) {
    const listeners = [
      ["open", () => this.#opened()],
      ["message", (event) => this.#received(event.data)],
      ["close", (event) => this.#closed({ code: event.code, reason: event.reason, wasClean: event.wasClean })],
      ["error", () => this.emit("error", { error: new Error("WebSocket error") })],
    ];
    for (const [type, listener] of listeners) socket.addEventListener(type, listener);
    this.#socket = socket;
    this.#unwatch = () => {
      for (const [type, listener] of listeners) socket.removeEventListener(type, listener);
    };
    if (socket.readyState === OPEN) this.#opened();
    else if (socket.readyState > OPEN) this.#closed(undefined);
  }

  /** Forgets the current socket and removes its listeners. */
  #drop() {
    this.#unwatch?.();
    this.#unwatch = undefined;
    this.#socket = undefined;
  }

  #opened() {
    this.#open = true;
    this.#wasOpen = true;
    const reconnected = this.#everOpen ? this.#attempt : undefined;
    this.#everOpen = true;
    this.#attempt = 0;
    const outbox = this.#outbox;
    this.#outbox = [];
    for (const text of outbox) {
      try {
        this.#socket.send(text);
      } catch {
        // Accepted earlier: a failure here shows as the call's timeout.
      }
    }
    this.emit("open", {});
    if (reconnected !== undefined) this.emit("reconnected", { attempt: reconnected });
  }

  // A binary frame goes to the endpoint too, which answers it (`-32700`:
  // a text transport's message that is not text); the page hears of it.
  #received(data) {
    this.deliver(data);
    if (typeof data !== "string") {
      this.emit("error", { error: new Error("binary frame refused: wiggum-rpc reads JSON text frames only") });
    }
  }

  #closed(info) {
    this.#drop();
    this.#open = false;
    const lost = this.#wasOpen;
    this.#wasOpen = false;
    if (this.destroyed) return;
    let delay;
    if (this.#redial !== undefined) {
      this.#attempt += 1;
      delay = reconnectDelay(...this.#redial.settings, this.#attempt, Math.random());
      if (delay < 0) delay = undefined;
    }
    // Closed for good: what waits will never go.
    if (delay === undefined) this.#outbox = [];
    // Calls sent over a lost connection fail now (unless a session carries
    // them to the next); so does everything once there is no next attempt.
    const final = this.#redial !== undefined && delay === undefined;
    if (lost || delay === undefined) this.emit("close", { ...(info ?? { code: 1006 }), final });
    if (delay !== undefined) {
      this.#timer = setTimeout(() => this.#dial(), delay);
      this.emit("reconnecting", { attempt: this.#attempt, delay });
    }
  }

  /** Opens the next connection (the reconnect timer fired). */
  #dial() {
    this.#timer = undefined;
    if (this.destroyed) return;
    const { make, url, protocols } = this.#redial;
    let socket;
    try {
      socket = openSocket(make, url, protocols);
    } catch (error) {
      this.emit("error", { error });
      this.#closed(undefined);
      return;
    }
    this.#watch(socket);
  }
}

function openSocket(make, url, protocols) {
  const Socket = make ?? globalThis.WebSocket;
  if (typeof Socket !== "function") {
    throw new TypeError("webSocketTransport: no global WebSocket here; pass { WebSocket } (for example from the ws package)");
  }
  const socket = protocols === undefined ? new Socket(url) : new Socket(url, protocols);
  // Browsers hand text frames over as strings; ask for ArrayBuffers, not Blobs, for the rest.
  socket.binaryType = "arraybuffer";
  return socket;
}

/**
 * JSON-RPC over a WebSocket: `target` is a `ws:`/`wss:` URL or an open (or
 * opening) socket. Options: `reconnect` (`true` or the schedule),
 * `WebSocket` (the constructor to dial with, e.g. `ws`'s in Node),
 * `protocols`.
 */
export function webSocketTransport(target, options) {
  const make = options?.WebSocket;
  const protocols = options?.protocols;
  const reconnect = options?.reconnect;
  const resume = options?.resume !== false;
  const announce = options?.handshake === "announce" ? "announce" : options?.handshake === "wait" ? "await" : undefined;
  // `true`, or an object of settings (each as a number, NaN where not given:
  // the schedule's defaults apply).
  const redials = reconnect === true || (typeof reconnect === "object" && reconnect !== null);
  const settings = ["initialDelay", "maxDelay", "factor", "jitter", "maxAttempts"].map((name) => Number(reconnect?.[name] ?? NaN));
  if (typeof target === "string") {
    const redial = redials ? { make, url: target, protocols, settings } : undefined;
    return new WebSocketTransport(openSocket(make, target, protocols), redial, resume, announce);
  }
  if (target === null || typeof target !== "object") {
    throw new TypeError("webSocketTransport: pass a ws:// URL or a WebSocket");
  }
  let redial;
  if (redials) {
    if (typeof target.url !== "string") throw new TypeError("webSocketTransport: reconnect needs the socket's url");
    // A wrapped socket is redialled at its own URL with its own constructor.
    redial = { make: make ?? target.constructor, url: target.url, protocols, settings };
  }
  return new WebSocketTransport(target, redial, resume, announce);
}
