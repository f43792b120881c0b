// One server for many clients, the package's `wiggum-rpc/hub` entry: each
// connection (a WebSocket of Node's `ws` server, a MessagePort, any
// transport) gets a client id and a Peer of its own; the hub serves the same
// methods to all of them, tells each handler which client called, notifies
// or calls one client or all, and forgets a client when its connection
// closes (only that client's calls fail). The protocol is each Peer's: this
// is bookkeeping over them. `broadcastHub` makes the peers on one
// BroadcastChannel the clients of each other's hubs.

import { ErrorCode, Peer, RPCError, Transport, portTransport } from "./wiggum_rpc.js";
import { webSocketTransport } from "./websocket.js";

export class Hub {
  /** Client id → its Peer and what removes its listeners. */
  #clients = new Map();
  /** [kind, name, handler, info] as registered, for clients that connect later. */
  #handlers = [];
  #listeners = { connection: new Set(), disconnection: new Set() };
  #options;
  #next = 0;
  #destroyed = false;
  /** What `attach()` hooked up, undone by `destroy()`. */
  #detach = [];

  /** `options` are each client's Peer options (`timeout`, `trace`, …). */
  constructor(options) {
    this.#options = options;
  }

  /** The ids of the clients connected now, in the order they came. */
  get clients() {
    return [...this.#clients.keys()];
  }

  /**
   * Serves `name` to every client, now and later. The handler's context has
   * `client`, the id of the caller (and `signal`, `emit` as usual).
   */
  method(name, handler, info) {
    this.#register("method", name, handler, info);
  }

  /** Handles the notification `name` from any client; the handler's second argument is the client's id. */
  onNotify(name, handler, info) {
    this.#register("notification", name, handler, info);
  }

  #register(kind, name, handler, info) {
    if (typeof handler !== "function") throw new TypeError("handler must be a function");
    this.#handlers.push([kind, name, handler, info]);
    for (const [id, { peer }] of this.#clients) this.#serve(peer, id, kind, name, handler, info);
  }

  #serve(peer, id, kind, name, handler, info) {
    if (kind === "method") peer.method(name, (params, context) => handler(params, { ...context, client: id }), info);
    else peer.onNotify(name, (params) => handler(params, id), info);
  }

  /**
   * A new client on `transport`: its Peer serves every method. Returns its
   * id (`id`, or a fresh one). When the transport emits `close`, the client
   * is gone (see `drop`).
   */
  accept(transport, id) {
    if (this.#destroyed) throw new Error("hub destroyed");
    id = id === undefined ? `client-${++this.#next}` : String(id);
    if (this.#clients.has(id)) throw new Error(`a client ${id} is connected already`);
    const peer = new Peer(transport, this.#options);
    const client = { peer, unwatch: undefined };
    this.#clients.set(id, client);
    for (const [kind, name, handler, info] of this.#handlers) this.#serve(peer, id, kind, name, handler, info);
    try {
      client.unwatch = peer.on("close", () => this.drop(id));
    } catch {
      // A transport without events: the application calls drop(id).
    }
    this.#emit("connection", id);
    return id;
  }

  /**
   * The client `id` is gone: its pending calls fail (`DESTROYED`), its Peer
   * and transport are destroyed, `disconnection` is emitted. Returns whether
   * it was connected.
   */
  drop(id) {
    const client = this.#clients.get(id);
    if (client === undefined) return false;
    this.#clients.delete(id);
    client.unwatch?.();
    client.peer.destroy();
    this.#emit("disconnection", id);
    return true;
  }

  /** The Peer of client `id`, or undefined. */
  peer(id) {
    return this.#clients.get(id)?.peer;
  }

  /** Calls a method of client `id`. */
  request(id, method, params, options) {
    const peer = this.peer(id);
    if (peer === undefined) return Promise.reject(new RPCError(ErrorCode.CONNECTION_CLOSED, `No client ${id}`));
    return peer.request(method, params, options);
  }

  /** Notifies client `id`; returns whether it is connected. */
  notify(id, method, params) {
    const peer = this.peer(id);
    peer?.notify(method, params);
    return peer !== undefined;
  }

  /** Notifies every client. */
  notifyAll(method, params) {
    for (const { peer } of this.#clients.values()) peer.notify(method, params);
  }

  /**
   * Calls a method of every client connected now; resolves, once each has
   * answered, failed or timed out (`options.timeout`), with
   * `{ [id]: { result } | { error } }`. Never rejects.
   */
  async requestAll(method, params, options) {
    const ids = this.clients;
    const outcomes = await Promise.all(ids.map((id) =>
      this.request(id, method, params, options).then((result) => ({ result }), (error) => ({ error }))));
    return Object.fromEntries(ids.map((id, at) => [id, outcomes[at]]));
  }

  /** `connection` / `disconnection`, with the client's id; returns what removes the listener. */
  on(event, listener) {
    const listeners = this.#listeners[event];
    if (listeners === undefined) throw new TypeError(`a hub has no ${event} event`);
    listeners.add(listener);
    return () => listeners.delete(listener);
  }

  #emit(event, id) {
    for (const listener of [...this.#listeners[event]]) {
      try {
        listener(id);
      } catch (error) {
        queueMicrotask(() => {
          throw error;
        });
      }
    }
  }

  /**
   * Takes every connection of a WebSocket server (Node's `ws`
   * `WebSocketServer`, or anything that emits `connection` with a socket).
   */
  attach(server) {
    const onConnection = (socket) => {
      if (!this.#destroyed) this.accept(webSocketTransport(socket));
    };
    server.on("connection", onConnection);
    this.#detach.push(() => server.off("connection", onConnection));
    return this;
  }

  /**
   * Takes every page that connects to this SharedWorker (`scope`, the
   * worker's global scope). A page that connected with
   * `sharedWorkerTransport` is dropped when it goes away (it holds a Web
   * Lock for as long as it lives); others when `drop(id)` is called.
   *
   * The first page connects as the worker starts, before anything it awaits:
   * call `listen` before awaiting, and pass what must finish before a Peer
   * can be made as `ready` (the web build's `init()`); pages that connect
   * before it has are taken once it has.
   */
  listen(scope = globalThis, ready) {
    let waiting = ready === undefined ? undefined : [];
    const take = (ports) => {
      if (this.#destroyed) return;
      if (waiting !== undefined) waiting.push(...ports);
      else for (const port of ports) this.#acceptPage(port);
    };
    const onConnect = (event) => take(event.ports);
    scope.addEventListener("connect", onConnect);
    this.#detach.push(() => scope.removeEventListener("connect", onConnect));
    Promise.resolve(ready).then(() => {
      const early = waiting ?? [];
      waiting = undefined;
      take(early);
    });
    return this;
  }

  #acceptPage(port) {
    const id = this.accept(portTransport(port));
    // The page's first message names the lock it holds while it lives.
    const onLock = ({ data }) => {
      const lock = data?.[PAGE_LOCK];
      if (typeof lock !== "string") return;
      port.removeEventListener("message", onLock);
      globalThis.navigator?.locks?.request(lock, () => {
        this.drop(id);
      });
    };
    port.addEventListener("message", onLock);
  }

  /** Drops every client and stops taking connections (attached servers stay up: they are yours). */
  destroy() {
    if (this.#destroyed) return;
    this.#destroyed = true;
    for (const undo of this.#detach.splice(0)) undo();
    for (const id of this.clients) this.drop(id);
    this.#listeners.connection.clear();
    this.#listeners.disconnection.clear();
  }
}

// The key of a page's first message to a SharedWorker: the name of the Web
// Lock the page holds for as long as it lives. The browser releases it when
// the page goes away, however it goes; the worker, waiting for the same
// lock, then learns the page is gone.
const PAGE_LOCK = "wiggum-rpc/page-lock";

/**
 * A page's transport to a SharedWorker served by `hub.listen()`: its port,
 * and a Web Lock held while the page lives (or until `destroy()`), so the
 * worker's hub drops this page when it goes. `options` are `portTransport`'s.
 */
export function sharedWorkerTransport(worker, options) {
  const port = worker.port;
  const transport = portTransport(port, options);
  const locks = globalThis.navigator?.locks;
  if (locks === undefined) return transport;
  const lock = `${PAGE_LOCK}/${crypto.randomUUID()}`;
  let release;
  const held = new Promise((resolve) => (release = resolve));
  // The worker hears of the lock once the page holds it: asked for
  // earlier, the lock would be the worker's at once.
  locks.request(lock, () => {
    if (!transport.destroyed) port.postMessage({ [PAGE_LOCK]: lock });
    return held;
  });
  const destroy = transport.destroy.bind(transport);
  transport.destroy = () => {
    release();
    destroy();
  };
  return transport;
}

// The envelope of every message on a broadcast channel: ours carry this key
// (any other traffic on the channel is left alone), who sent it, whom it is
// for (everyone when absent), and what it is.
const CHANNEL = "wiggum-rpc/broadcast";

/** One other peer on the channel, as a transport of its own. */
class ChannelLink extends Transport {
  #post;

  constructor(post) {
    super();
    this.#post = post;
  }

  send(message) {
    this.#post(message);
  }

  /** Hands over a message the channel brought from this peer. */
  receive(message) {
    this.deliver(message);
  }

  release() {}
}

/**
 * A hub whose clients are the other peers on one BroadcastChannel: each
 * peer says `hello` with its id when it joins (and answers each newcomer's),
 * and `bye` when its hub is destroyed. Where there are Web Locks, each peer
 * also holds one named after its id while it lives, so the others learn of a
 * peer that vanished without a word. Calls and their answers go to one peer
 * only; `notifyAll` and `requestAll` reach every peer there now.
 */
class BroadcastHub extends Hub {
  /** This peer's id on the channel. */
  id;
  #bus;
  #owned;
  #links = new Map();
  #onMessage = ({ data }) => this.#received(data);
  #closed = false;
  /** Ends this peer's lock, and the waits for the others'. */
  #leaving = new AbortController();

  constructor(channel, { id = crypto.randomUUID(), ...peerOptions } = {}) {
    super(peerOptions);
    this.id = String(id);
    this.#owned = typeof channel === "string";
    this.#bus = this.#owned ? new BroadcastChannel(channel) : channel;
    this.on("disconnection", (peer) => this.#links.delete(peer));
    this.#bus.addEventListener("message", this.#onMessage);
    const locks = globalThis.navigator?.locks;
    if (locks === undefined) {
      this.#post("hello");
      return;
    }
    // Hello once the lock is held: before, a peer waiting for it would get it at once.
    const leaving = this.#leaving.signal;
    locks.request(this.#lockOf(this.id), () => {
      if (leaving.aborted) return undefined;
      this.#post("hello");
      return new Promise((resolve) => leaving.addEventListener("abort", resolve, { once: true }));
    });
  }

  #lockOf(peer) {
    return `${CHANNEL}/${this.#bus.name}/${peer}`;
  }

  #post(kind, to, message) {
    this.#bus.postMessage({ [CHANNEL]: kind, from: this.id, to, message });
  }

  /** The link to peer `from`, made (and its client accepted) on first contact. */
  #link(from) {
    let link = this.#links.get(from);
    if (link === undefined) {
      link = new ChannelLink((message) => this.#post("message", from, message));
      this.#links.set(from, link);
      this.accept(link, from);
      // Granted when the peer is gone, however it went.
      globalThis.navigator?.locks?.request(this.#lockOf(from), { signal: this.#leaving.signal }, () => {
        if (this.#links.get(from) === link) this.drop(from);
      }).catch(() => {});
    }
    return link;
  }

  #received(data) {
    const kind = data?.[CHANNEL];
    if (kind === undefined || typeof data.from !== "string" || data.from === this.id) return;
    if (data.to !== undefined && data.to !== this.id) return;
    if (kind === "hello") {
      const known = this.#links.has(data.from);
      this.#link(data.from);
      // A newcomer learns of each peer already there.
      if (!known && data.to === undefined) this.#post("hello", data.from);
    } else if (kind === "bye") {
      this.drop(data.from);
    } else if (kind === "message") {
      this.#link(data.from).receive(data.message);
    }
  }

  /** Says `bye`, drops every peer, leaves the channel (closing it if it was opened by name). */
  destroy() {
    if (this.#closed) return;
    this.#closed = true;
    this.#bus.removeEventListener("message", this.#onMessage);
    try {
      this.#post("bye");
    } catch {
      // The channel is closed already: the others learn of it from the lock.
    }
    this.#leaving.abort();
    super.destroy();
    if (this.#owned) this.#bus.close();
  }
}

/**
 * The peers on one BroadcastChannel (`channel`, or its name) as a hub's
 * clients. `options.id` names this peer (a random UUID otherwise); the rest
 * are each link's Peer options.
 */
export function broadcastHub(channel, options) {
  return new BroadcastHub(channel, options);
}
