// One server for many clients, the package's `wiggum-rpc/hub` entry: each
// connection (a WebSocket of Node's `ws` server, a MessagePort, any
// transport) gets a client id and a Peer of its own; the hub serves the same
// methods to all of them, tells each handler which client called, notifies
// or calls one client or all, and forgets a client when its connection
// closes (only that client's calls fail). The protocol is each Peer's: this
// is bookkeeping over them.

import { ErrorCode, Peer, RPCError } from "./wiggum_rpc.js";
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
