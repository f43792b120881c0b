// The transports' shared base, and the postMessage transports: a window
// (iframe ↔ parent), a MessagePort, a Worker and the worker's own global
// scope. Each owns its `message` listener and, for ports, the port itself;
// `destroy()` releases them. (The WebSocket transport, websocket.js, builds
// on the same base.)
//
// They are plain JS because they hold no JSON-RPC logic, only listeners,
// an inbox and postMessage: here a message costs no crossing into wasm.
//
// Only JSON-RPC traffic is taken (an array, or an object with
// `jsonrpc: "2.0"`, from the expected window and origin); everything else on
// the channel is left alone. Messages that arrive before anyone subscribed
// wait in an inbox. The `$/ready` handshake itself is the endpoint's: a
// transport only says, in `handshake`, whether its other side may miss what
// is sent before it listens ("hold": a frame still loading, until it has
// loaded or spoken; `open` is emitted then) or keeps it ("announce").
//
// Toward a worker or a frame, the other side may be wiggum-rpc still loading
// its wasm, or another library that never says hello: so nothing waits for a
// hello. A worker keeps what is posted to it before its script runs, and
// this module, evaluated in a worker or a window before anything is awaited,
// keeps JSON-RPC messages that arrive before the first endpoint listens
// (`early`): the page may send at once. A frame still loading its document
// would drop messages, so a window transport holds until it has loaded.

/**
 * What every transport shares: the handlers of incoming messages, the inbox
 * of what arrives before the first handler, lifecycle events, and
 * `destroy()`. A subclass calls `deliver` with each message, `emit` with
 * its events, and releases what it owns in `release`.
 */
export class Transport {
  #handlers = [];
  #listeners = new Map();
  #inbox = [];
  #inboxScheduled = false;
  #destroyed = false;

  /**
   * Adds a handler for incoming JSON-RPC messages. The first one also
   * receives, on the next microtask, whatever arrived before it.
   */
  onMessage(handler) {
    if (this.#destroyed) return;
    this.#handlers.push(handler);
    if (this.#handlers.length !== 1) return;
    this.#inboxScheduled = true;
    // Later in this turn, so methods registered right after the constructor
    // are in place before early requests are dispatched.
    queueMicrotask(() => this.#deliverInbox());
  }

  /** Removes a handler added with `onMessage`. */
  offMessage(handler) {
    this.#handlers = this.#handlers.filter((h) => h !== handler);
  }

  /** Stops delivering, drops the inbox, releases what the transport owns. */
  destroy() {
    if (this.#destroyed) return;
    this.#destroyed = true;
    this.#handlers = [];
    this.#inbox = [];
    this.release();
  }

  get destroyed() {
    return this.#destroyed;
  }

  /** Listens to a lifecycle event (`open`, `close`, …); returns what removes the listener. */
  on(type, listener) {
    if (typeof listener !== "function") throw new TypeError("listener must be a function");
    let set = this.#listeners.get(type);
    if (!set) this.#listeners.set(type, (set = new Set()));
    set.add(listener);
    return () => set.delete(listener);
  }

  /** Tells the listeners of `type`; a throwing listener is reported like any uncaught error, and the rest still run. */
  emit(type, detail) {
    for (const listener of [...(this.#listeners.get(type) ?? [])]) {
      try {
        listener(detail);
      } catch (error) {
        queueMicrotask(() => {
          throw error;
        });
      }
    }
  }

  /** What a subclass owns (listeners, a port, a socket); called once, by `destroy()`. */
  release() {}

  /** Hands one incoming message to the handlers, or keeps it until there are some. */
  deliver(message) {
    if (this.#destroyed) return;
    if (this.#handlers.length === 0 || this.#inboxScheduled) {
      this.#inbox.push(message);
      return;
    }
    for (const handler of this.#handlers) handler(message);
  }

  #deliverInbox() {
    this.#inboxScheduled = false;
    const inbox = this.#inbox;
    this.#inbox = [];
    for (const message of inbox) this.deliver(message);
  }
}

// Presence: one side holds a Web Lock while it lives and names it in its
// hello; the other side waits for that lock, which the browser frees however
// the holder ends. Locks are per origin: a side of another origin (or an
// opaque one) is never seen, and nothing is watched.

/**
 * Holds a lock of a fresh name until `signal` aborts (or this context ends);
 * its name, or undefined without Web Locks. The lock is asked for after
 * this task: a context's first request to the lock manager is slow, and a
 * fresh worker's first answer need not wait for it (the other side waits up
 * to a second to see the lock held).
 */
function holdPresence(signal) {
  const locks = globalThis.navigator?.locks;
  if (locks === undefined || typeof crypto?.randomUUID !== "function") return undefined;
  const name = `wiggum-rpc:${crypto.randomUUID()}`;
  setTimeout(() => {
    if (signal.aborted) return;
    try {
      locks.request(name, () => new Promise((resolve) => signal.addEventListener("abort", resolve, { once: true }))).catch(() => {});
    } catch {
      // No lock for this context (an opaque origin): the other side never sees it held, and watches nothing.
    }
  }, 0);
  return name;
}

/**
 * Calls `onGone` once the lock `name` is free, unless `signal` aborts first.
 * It waits only for a lock it has seen held (its hello may come before the
 * holder's request is granted; a lock of another origin is never seen).
 */
async function watchPresence(name, signal, onGone) {
  const locks = globalThis.navigator?.locks;
  if (locks === undefined) return;
  try {
    for (let tries = 0; ; tries++) {
      const { held = [] } = await locks.query();
      if (signal.aborted) return;
      if (held.some((lock) => lock.name === name)) break;
      if (tries === 20) return;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await locks.request(name, { signal }, () => onGone());
  } catch {
    // Aborted, or no locks here (an opaque origin): nothing to watch.
  }
}

// The module hand-off. A dedicated worker that loads the web build itself
// (`init()` with a path, or none) asks whoever created it for the module
// that build compiled, while it fetches the .wasm: `$/module` with the
// build's id (a hash of the .wasm). A page whose worker transport hears the
// question, and whose own build has that id and has been initialised,
// answers with its WebAssembly.Module (a clone shares the compiled code), and
// the worker instantiates that instead of waiting for its fetch and compile.
// Anyone else ignores the question, as JSON-RPC peers ignore `$/`
// notifications they do not know, and the worker's fetch wins. The worker
// gives the answer ANSWER_GRACE ms before it fetches: a worker's first
// fetch() holds its thread a millisecond or more, and its response and
// compile more, all of which would delay the answer it is waiting for (an
// idle page's comes in under a millisecond); the answer still wins if it
// comes later. This lives here, not in the core: it is asked before the
// worker has a core at all.
const MODULE = "$/module";
const ANSWER_GRACE = 2;
let offered;

/** This build's compiled module and its id, which worker transports hand to a worker that asks for them. */
export function offerModule(module, build) {
  offered = { module, build };
}

function isModuleMessage(data) {
  return isOurs(data) && data.method === MODULE;
}

/** Whether this code runs in a dedicated worker (whose owner may hand it a module). */
function inDedicatedWorker() {
  return typeof DedicatedWorkerGlobalScope === "function" && globalThis instanceof DedicatedWorkerGlobalScope;
}

/**
 * What `init()` instantiates when it would fetch `url`: the owner's module of
 * build `build` if that comes first, else the fetch's response (the fetch is
 * aborted once the module is here). Outside a dedicated worker, the fetch.
 */
export function ownerModuleOrFetch(url, build) {
  if (!inDedicatedWorker()) return fetch(url);
  const scope = globalThis;
  const fetching = new AbortController();
  return new Promise((resolve, reject) => {
    let grace;
    const settle = (settled, value) => {
      clearTimeout(grace);
      scope.removeEventListener("message", listener);
      settled(value);
    };
    const listener = (event) => {
      const { data } = event;
      if (!isModuleMessage(data) || data.params?.build !== build || !(data.params.module instanceof WebAssembly.Module)) return;
      event.stopImmediatePropagation();
      fetching.abort();
      settle(resolve, data.params.module);
    };
    const ownFetch = () =>
      fetch(url, { signal: fetching.signal }).then(
        (response) => settle(resolve, response),
        (error) => settle(reject, error),
      );
    scope.addEventListener("message", listener);
    try {
      scope.postMessage({ jsonrpc: "2.0", method: MODULE, params: { build } });
      grace = setTimeout(ownFetch, ANSWER_GRACE);
    } catch {
      ownFetch();
    }
  });
}

/** Whether `data` may be JSON-RPC: an array, or an object with `jsonrpc: "2.0"`. */
function isOurs(data) {
  return Array.isArray(data) || (data !== null && typeof data === "object" && data.jsonrpc === "2.0");
}

// The messages that reached this worker or window before any transport
// listened on it, at most EARLY_LIMIT; the transports made on it in the turn
// the first one was made each see them (a client and a server on one worker),
// then they are dropped.
const EARLY_LIMIT = 1_000;
let early = listenEarly();

function listenEarly() {
  const scope = globalThis;
  if (typeof scope.addEventListener !== "function") return undefined;
  const inWindow = typeof Window === "function" && scope instanceof Window;
  if (!inDedicatedWorker() && !inWindow) return undefined;
  const events = [];
  const listener = (event) => {
    if (!isOurs(event.data) || isModuleMessage(event.data)) return;
    events.push(event);
    if (events.length >= EARLY_LIMIT) scope.removeEventListener("message", listener);
  };
  scope.addEventListener("message", listener);
  return { scope, events, stop: () => scope.removeEventListener("message", listener), ending: false };
}

// A dedicated worker's own messages (not JSON-RPC) that came while the
// package loaded. A bundled worker's `import … from "wiggum-rpc"` waits for
// the .wasm before the worker's code runs, so a message its page posts at
// once (handing over a MessagePort) would find no listener there and be
// lost. They are held until the module has started, then dispatched again
// on the worker's scope, in their order, once the worker's code has had its
// turn to listen. A build whose code runs before the module starts (the
// no-bundler build: `await init()`) holds nothing: its code listens first.
let held = holdOwnMessages();

function holdOwnMessages() {
  if (!inDedicatedWorker()) return undefined;
  const scope = globalThis;
  const events = [];
  const listener = (event) => {
    if (!isOurs(event.data) && events.length < EARLY_LIMIT) events.push(event);
  };
  scope.addEventListener("message", listener);
  return { scope, events, stop: () => scope.removeEventListener("message", listener) };
}

/** The module is instantiated (its start function): what was held goes out again, after the worker's code has run. */
export function moduleStarted() {
  const taken = held;
  held = undefined;
  if (taken === undefined) return;
  taken.stop();
  if (taken.events.length === 0) return;
  setTimeout(() => {
    for (const { data, ports, origin, lastEventId } of taken.events) {
      taken.scope.dispatchEvent(new MessageEvent("message", { data, ports: [...ports], origin, lastEventId }));
    }
  }, 0);
}

/** The no-bundler build: its code runs before `init()` starts the module, so nothing is held. */
export function holdNothing() {
  held?.stop();
  held = undefined;
}

/** What reached `scope` before this transport listened there, handed to `listener` once. */
function replayEarly(scope, listener) {
  if (early === undefined || early.scope !== scope) return;
  const taken = early;
  if (!taken.ending) {
    taken.ending = true;
    taken.stop();
    setTimeout(() => {
      if (early === taken) early = undefined;
    }, 0);
  }
  for (const event of taken.events) listener(event);
}

class PostMessageTransport extends Transport {
  #target;
  #targetOrigin;
  #port;
  #listenOn;
  #listener;
  #unwatch;
  #alive = new AbortController();
  #watching;
  #gone = false;
  #mayAsk = false;

  /**
   * Posts to `target` (a window with `targetOrigin`; a port or a worker
   * without); `source` and `origin` (or undefined) are what incoming
   * messages must come from.
   */
  constructor(target, targetOrigin, port, listenOn, source, origin, handshake) {
    super();
    this.#target = target;
    this.#targetOrigin = targetOrigin;
    this.#port = port;
    this.#listenOn = listenOn;
    /** "hold", "announce", or undefined for none (read by the endpoint). */
    this.handshake = handshake;
    /** Messages cross as structured clones: batches may go packed (read by the endpoint). */
    this.structured = true;
    this.#listener = (event) => {
      if (source !== undefined && event.source !== source) return;
      if (origin !== undefined && event.origin !== origin) return;
      const data = event.data;
      if (!isOurs(data) || (this.#mayAsk && this.#answered(data))) return;
      this.deliver(data);
    };
    replayEarly(listenOn, this.#listener);
    // Node's worker_threads (the Node build only): `#unwatch` is then what releases the channel.
    if (WITH_NODE && typeof listenOn.once === "function") {
      this.#unwatch = nodeChannel(listenOn, this.#listener, this);
      this.#listenOn = { removeEventListener() {} };
    } else listenOn.addEventListener("message", this.#listener);
    /** The Web Lock this side holds while it lives, named in the hello (undefined without Web Locks). */
    this.presence = holdPresence(this.#alive.signal);
  }

  /** Toward a worker: its first JSON-RPC message may ask for this build's module. */
  answerModuleQuestion() {
    this.#mayAsk = true;
  }

  // Whether `data`, the worker's first JSON-RPC message, was its question
  // for the module; the module is handed over if this build is the one asked for.
  #answered(data) {
    this.#mayAsk = false;
    if (!isModuleMessage(data)) return false;
    if (offered !== undefined && data.params?.build === offered.build) {
      try {
        this.send({ jsonrpc: "2.0", method: MODULE, params: { build: offered.build, module: offered.module } });
      } catch {
        // A worker of another agent cluster cannot take the module: it has its own fetch.
      }
    }
    return true;
  }

  /**
   * The other side's hello named the lock it holds while it lives: when the
   * lock frees (a worker terminated, a frame removed or navigated away, its
   * endpoint destroyed), emits `close`, and the endpoint fails the calls
   * waiting on it. A new name is a new instance (a frame that reloaded):
   * `open` again if the last one had gone.
   */
  watch(name) {
    this.#watching?.abort();
    const watching = (this.#watching = new AbortController());
    if (this.#gone) {
      this.#gone = false;
      this.emit("open");
    }
    watchPresence(name, watching.signal, () => {
      if (this.destroyed || watching.signal.aborted) return;
      this.#gone = true;
      this.emit("close", { code: 1001, reason: "the other side has gone" });
    });
  }

  /**
   * Toward `target`, a frame of this document still loading: holds calls
   * (`handshake` "hold") and emits `open` once it has loaded, so the
   * endpoint sends what it held. Toward a frame that has loaded, or one that
   * is not ours to watch (a parent, an opener: it existed before us), sends
   * at once ("announce").
   */
  watchFrame(target) {
    const frame = frameOf(target);
    if (frame === undefined || frameLoaded(target)) {
      this.handshake = "announce";
      return;
    }
    this.handshake = "hold";
    const onLoad = () => {
      if (!frameLoaded(target)) return;
      this.#unwatch();
      this.emit("open");
    };
    frame.addEventListener("load", onLoad);
    this.#unwatch = () => frame.removeEventListener("load", onLoad);
  }

  /** Posts a message. Throws what `postMessage` throws, e.g. `DataCloneError`. */
  send(message, transfer) {
    if (this.destroyed) throw new Error("transport destroyed");
    // A window's postMessage takes a target origin; a port's and a worker's do not.
    if (this.#targetOrigin === undefined) this.#target.postMessage(message, transfer);
    else this.#target.postMessage(message, this.#targetOrigin, transfer);
  }

  /** Removes the listener, frees this side's lock (the other side learns it has gone), closes an owned port. */
  release() {
    this.#watching?.abort();
    this.#alive.abort();
    this.#unwatch?.();
    this.#listenOn.removeEventListener("message", this.#listener);
    try {
      this.#port?.close();
    } catch {
      // Already closed or neutered: nothing left to release.
    }
  }
}

/**
 * Node's worker_threads channel `emitter` (a Worker, a MessagePort,
 * `parentPort`), for the Node build: its messages to `listener` (a Worker is
 * an EventEmitter only, whose `message` listeners get the data itself), and
 * its end told as `close` on `transport`, where a browser tells nothing: a
 * port emits `close` once either side is closed (or the worker it went to
 * ended), a Worker `exit`. Returns what stops listening.
 */
function nodeChannel(emitter, listener, transport) {
  const onMessage = (data) => listener({ data, source: null, origin: "" });
  let gone = false;
  const onEnd = () => {
    if (gone || transport.destroyed) return;
    gone = true;
    transport.emit("close", { code: 1001, reason: "the other side has gone" });
  };
  emitter.on("message", onMessage);
  emitter.on("close", onEnd);
  emitter.on("exit", onEnd);
  return () => {
    emitter.off("message", onMessage);
    emitter.off("close", onEnd);
    emitter.off("exit", onEnd);
  };
}

/** The `<iframe>` (or `<frame>`, `<object>`) of this document whose window is `target`. */
function frameOf(target) {
  const frames = globalThis.document?.querySelectorAll?.("iframe, frame, object") ?? [];
  for (const frame of frames) if (frame.contentWindow === target) return frame;
  return undefined;
}

// Whether a frame's document has loaded. One we cannot read is of another
// origin, so it is no longer the initial about:blank: it has loaded, or it
// fires `load` when it has (and a wiggum-rpc frame keeps what comes early).
function frameLoaded(target) {
  try {
    const document = target.document;
    return document.readyState === "complete" && !(target.location.href === "about:blank" && isInitial(document));
  } catch {
    return true;
  }
}

// The initial about:blank of a frame whose navigation has not committed yet
// (a frame really showing about:blank has a body and fired its load).
function isInitial(document) {
  return document.documentElement === null || document.body === null || document.body.childNodes.length === 0;
}

// The handshake a transport asks of its endpoints: `mode`; none with
// `{ handshake: false }`; "hold" until the other side's hello with
// `{ handshake: "wait" }` (for a wiggum-rpc peer that loads the package only
// after its document has loaded, by a dynamic import).
function handshakeOption(options, mode) {
  const handshake = options !== null && typeof options === "object" ? options.handshake : undefined;
  if (handshake === false) return undefined;
  return handshake === "wait" ? "hold" : mode;
}

function requireObject(value, message) {
  if (value === null || (typeof value !== "object" && typeof value !== "function")) throw new TypeError(message);
}

/** A transport that posts to and listens on one channel: a port, a worker, a worker's scope. */
function channelTransport(channel, ownsPort, handshake) {
  return new PostMessageTransport(channel, undefined, ownsPort ? channel : undefined, channel, undefined, undefined, handshake);
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
  // "frame": hold until the frame has loaded (see `watchFrame`).
  const handshake = handshakeOption(options, "frame");
  const transport = new PostMessageTransport(target, targetOrigin, undefined, listenOn, target, expected, handshake);
  if (handshake === "frame") transport.watchFrame(target);
  return transport;
}

/**
 * A transport over one end of a `MessageChannel`. Starts the port;
 * `destroy()` closes it, unless `closePort: false` (a port another protocol
 * also uses, or one the caller owns and closes itself).
 */
export function portTransport(port, options) {
  requireObject(port, "portTransport: port must be a MessagePort");
  // Node: a worker_threads Worker handed as a port is that worker's channel.
  if (WITH_NODE && typeof port.start !== "function" && typeof port.terminate === "function") return workerTransport(port, options);
  const transport = channelTransport(port, options?.closePort !== false, handshakeOption(options, "announce"));
  try {
    port.start();
  } catch (error) {
    transport.destroy();
    throw error;
  }
  return transport;
}

/**
 * The main thread's side of a dedicated `Worker`. Calls go at once: a worker
 * keeps what is posted before its script runs, and a wiggum-rpc worker what
 * comes before its endpoint exists.
 */
export function workerTransport(worker, options) {
  requireObject(worker, "workerTransport: worker must be a Worker");
  const transport = channelTransport(worker, false, handshakeOption(options, "announce"));
  transport.answerModuleQuestion();
  return transport;
}

/** Inside a dedicated worker: talks to whoever created it, through its global scope (in Node, `parentPort`). */
export function selfTransport(options) {
  if (WITH_NODE && typeof globalThis.addEventListener !== "function") {
    if (nodeParentPort == null) throw new TypeError("selfTransport() runs inside a worker (in Node, a worker_threads Worker)");
    const transport = channelTransport(nodeParentPort, false, handshakeOption(options, "announce"));
    nodeParentPort.start();
    return transport;
  }
  return channelTransport(globalThis, false, handshakeOption(options, "announce"));
}

// Node: the worker's `parentPort` (null on the main thread), which the Node build gives (node.js).
let nodeParentPort;
export function useParentPort(port) {
  nodeParentPort = port;
}
