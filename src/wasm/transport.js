// postMessage transports: a window (iframe ↔ parent), a MessagePort, a Worker
// and the worker's own global scope. Each owns its `message` listener and,
// for ports, the port itself; `destroy()` releases them.
//
// They are plain JS because they hold no JSON-RPC logic, only listeners,
// queues and postMessage: here a message costs no crossing into wasm.
//
// Only JSON-RPC traffic is taken (an array, or an object with
// `jsonrpc: "2.0"`, from the expected window and origin); everything else on
// the channel is left alone. Messages that arrive before anyone subscribed
// wait in an inbox, and with the handshake on, messages sent before the other
// side is listening wait in an outbox, so nothing is lost while either side
// is still loading.

// The handshake notification: `ack: false` says hello and asks for an
// answer, `ack: true` is the answer.
const READY = "$/ready";
const HELLO = 1;
const ACK = 2;

class PostMessageTransport {
  #post;
  #port;
  #listenOn;
  #listener;
  #handshake;
  #handlers = [];
  #inbox = [];
  #inboxScheduled = false;
  #outbox = [];
  #peerReady;
  #destroyed = false;

  /** `source` and `origin` (or undefined) are what incoming messages must come from. */
  constructor(post, port, listenOn, source, origin, handshake) {
    this.#post = post;
    this.#port = port;
    this.#listenOn = listenOn;
    this.#handshake = handshake;
    this.#peerReady = !handshake;
    this.#listener = (event) => {
      if (source !== undefined && event.source !== source) return;
      if (origin !== undefined && event.origin !== origin) return;
      const data = event.data;
      let ready = 0;
      if (Array.isArray(data)) {
        // A batch: ours.
      } else if (data !== null && typeof data === "object" && data.jsonrpc === "2.0") {
        if (data.method === READY && data.id === undefined) ready = data.params?.ack === true ? ACK : HELLO;
      } else {
        return;
      }
      if (ready !== 0 && handshake) {
        this.#peerIsReady();
        // A hello asks for an answer, once someone here is listening.
        if (ready === HELLO && this.#handlers.length > 0) this.#announce(true);
        return;
      }
      // Any other JSON-RPC message also shows the other side is there.
      this.#peerIsReady();
      this.#deliver(data);
    };
    listenOn.addEventListener("message", this.#listener);
  }

  /**
   * Posts a message (queued until the other side is listening when the
   * handshake is on). Throws what `postMessage` throws, e.g. `DataCloneError`.
   */
  send(message, transfer) {
    if (this.#destroyed) throw new Error("transport destroyed");
    if (this.#peerReady) this.#post(message, transfer);
    else this.#outbox.push([message, transfer]);
  }

  /**
   * Adds a handler for incoming JSON-RPC messages. The first one also
   * receives, on the next microtask, whatever arrived before it.
   */
  onMessage(handler) {
    if (this.#destroyed) return;
    this.#handlers.push(handler);
    if (this.#handlers.length !== 1) return;
    this.#inboxScheduled = true;
    if (this.#handshake) this.#announce(false);
    // Later in this turn, so methods registered right after the constructor
    // are in place before early requests are dispatched.
    queueMicrotask(() => this.#deliverInbox());
  }

  /** Removes a handler added with `onMessage`. */
  offMessage(handler) {
    this.#handlers = this.#handlers.filter((h) => h !== handler);
  }

  /** Removes the listener, closes an owned port, drops queued messages. */
  destroy() {
    if (this.#destroyed) return;
    this.#destroyed = true;
    this.#handlers = [];
    this.#inbox = [];
    this.#outbox = [];
    this.#listenOn.removeEventListener("message", this.#listener);
    try {
      this.#port?.close();
    } catch {
      // Already closed or neutered: nothing left to release.
    }
  }

  /** Messages waiting for the other side's handshake (for diagnostics). */
  get queued() {
    return this.#outbox.length;
  }

  #announce(ack) {
    try {
      // Written out, not `notificationMessage` from glue.js: the snippets
      // import nothing, so the package also loads from blob URLs (as into a
      // sandboxed, opaque-origin frame).
      this.#post({ jsonrpc: "2.0", method: READY, params: { ack } });
    } catch {
      // The other side is gone; its own calls will time out.
    }
  }

  #peerIsReady() {
    if (this.#peerReady || this.#destroyed) return;
    this.#peerReady = true;
    const outbox = this.#outbox;
    this.#outbox = [];
    for (const [message, transfer] of outbox) {
      try {
        this.#post(message, transfer);
      } catch {
        // Accepted earlier, unsendable now: the caller's timeout reports it.
      }
    }
  }

  #deliverInbox() {
    this.#inboxScheduled = false;
    const inbox = this.#inbox;
    this.#inbox = [];
    for (const message of inbox) this.#deliver(message);
  }

  #deliver(message) {
    if (this.#destroyed) return;
    if (this.#handlers.length === 0 || this.#inboxScheduled) {
      this.#inbox.push(message);
      return;
    }
    for (const handler of this.#handlers) handler(message);
  }
}

function handshakeOption(options, fallback) {
  const handshake = options !== null && typeof options === "object" ? options.handshake : undefined;
  return typeof handshake === "boolean" ? handshake : fallback;
}

function requireObject(value, message) {
  if (value === null || (typeof value !== "object" && typeof value !== "function")) throw new TypeError(message);
}

/** A transport that posts to and listens on one channel: a port, a worker, a worker's scope. */
function channelTransport(channel, ownsPort, handshake) {
  const post = (message, transfer) => channel.postMessage(message, transfer);
  return new PostMessageTransport(post, ownsPort ? channel : undefined, channel, undefined, undefined, handshake);
}

/**
 * A transport to another window: an iframe's `contentWindow` from its parent,
 * or `window.parent` from inside the iframe. Only messages from `target` (and
 * from `origin`, unless it is omitted or "*") are taken.
 */
export function windowTransport(target, source, origin, options) {
  requireObject(target, "windowTransport: target must be a Window");
  if (origin !== undefined && origin !== null && typeof origin !== "string") {
    throw new TypeError("windowTransport: origin must be a string");
  }
  const listenOn = source ?? globalThis;
  const expected = origin === "*" || origin === null ? undefined : origin;
  // An opaque origin ("null") cannot be named as a target origin; the source
  // check still pins the window.
  const targetOrigin = expected === undefined || expected === "null" ? "*" : expected;
  const post = (message, transfer) => target.postMessage(message, targetOrigin, transfer);
  return new PostMessageTransport(post, undefined, listenOn, target, expected, handshakeOption(options, true));
}

/** A transport over one end of a `MessageChannel`. Starts the port; `destroy()` closes it. */
export function portTransport(port, options) {
  requireObject(port, "portTransport: port must be a MessagePort");
  const transport = channelTransport(port, true, handshakeOption(options, false));
  try {
    port.start();
  } catch (error) {
    transport.destroy();
    throw error;
  }
  return transport;
}

/** The main thread's side of a dedicated `Worker`. */
export function workerTransport(worker, options) {
  requireObject(worker, "workerTransport: worker must be a Worker");
  return channelTransport(worker, false, handshakeOption(options, true));
}

/** Inside a dedicated worker: talks to whoever created it, through its global scope. */
export function selfTransport(options) {
  return channelTransport(globalThis, false, handshakeOption(options, true));
}
