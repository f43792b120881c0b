// The hub of the package's `wiggum-rpc/hub` entry (hub.js): one server for
// many clients. Each connection (a WebSocket of Node's `ws` server, a
// MessagePort, any transport) gets a client id and a Peer of its own; the hub
// serves the same methods to all of them, tells each handler which client
// called, notifies or calls one client or all (on this process, or through
// its `cluster` engine on others), and forgets a client when its connection
// closes (only that client's calls fail). The protocol is each Peer's: this
// is bookkeeping over them.

// It imports the root entry and `wiggum-rpc/websocket` as the package lays
// them out beside it; the build bundles the rest (js/transports/) in.
import { ErrorCode, Peer, RPCError, portTransport, presentedSession } from "./wiggum_rpc.js";
import { webSocketTransport } from "./websocket.js";
import { Listeners } from "./listeners.js";
import { originOf, refusal } from "./origins.js";
import { holdLock, whenGone } from "../transports/locks.js";
import { ClientLink, SERVICE_WORKER } from "../transports/service-worker.js";
import { PAGE_LOCK } from "../transports/shared-worker.js";

// A hub's middleware on client `id`'s Peer: it sees which client calls.
function usedBy(peer, id, middleware) {
  chains(peer);
  peer.use((call, next) => {
    call.client = id;
    call.context.client = id;
    return middleware(call, next);
  });
}

// `peer`, whose class has `use` and `intercept` once wiggum-rpc/middleware is imported.
function chains(peer) {
  if (typeof peer.use !== "function") throw new TypeError('a hub\'s use() and intercept() need `import "wiggum-rpc/middleware"`');
  return peer;
}

export class Hub {
  #middleware = [];
  #interceptors = [];
  /** Client id → its Peer and what removes its listeners. */
  #clients = new Map();
  /** [kind, name, handler, info] as registered, for clients that connect later. */
  #handlers = [];
  #listeners = new Listeners(["connection", "disconnection", "refused"], "a hub");
  #options;
  #next = 0;
  #destroyed = false;
  /** What `attach()` hooked up, undone by `destroy()`. */
  #detach = [];
  /** Session id → the client whose session it is (WebSocket clients that asked for one). */
  #sessions = new Map();
  /** Clients whose session waits for them to reconnect, oldest first. */
  #away = new Set();
  /** The engine that joins this hub to others (undefined: this process alone). */
  #cluster;
  /** Client id → the node it is connected to, for the clients of the other processes. */
  #remote = new Map();
  /** The sockets of attached servers this hub took, while open (`handOff` closes them). */
  #sockets = new Set();
  /** `handOff()` was called: this process is handing its sessions to others. */
  #leaving = false;

  /**
   * `options` are each client's Peer options (`timeout`, `trace`, …), and
   * `cluster`, an engine joining this hub to the hubs of other processes.
   */
  constructor(options) {
    const cluster = options?.cluster;
    if (cluster === undefined) {
      this.#options = options;
      return;
    }
    const { cluster: _, ...peerOptions } = options;
    this.#options = peerOptions;
    this.#cluster = cluster;
    cluster.start(this.#clusterSide());
  }

  /** What the cluster engine may ask of this hub: its own clients, and telling it of the others. */
  #clusterSide() {
    return {
      clients: () => [...this.#clients.keys()],
      request: (id, method, params, options) => this.#requestHere(id, method, params, options),
      notify: (id, method, params) => {
        const peer = this.peer(id);
        peer?.notify(method, params);
        return peer !== undefined;
      },
      notifyAll: (method, params) => this.#notifyHere(method, params),
      joined: (id, node) => {
        if (this.#destroyed || this.#clients.has(id)) return;
        const known = this.#remote.has(id);
        this.#remote.set(id, node);
        if (!known) this.#listeners.emit("connection", id);
      },
      left: (id, node) => {
        if (this.#destroyed || this.#remote.get(id) !== node) return;
        this.#remote.delete(id);
        this.#listeners.emit("disconnection", id);
      },
      sessions: () => [...this.#sessions.keys()],
      // Leaving: every socket closes (1012: the client redials, reaching another process).
      away: () => this.#sockets.forEach((socket) => socket.close(1012)),
      // The session `session` moves to node `to`: handed off (throws while busy), its client forgotten here without a word.
      handOff: (session, to) => {
        const id = this.#sessions.get(session);
        const handed = this.#clients.get(id)?.peer.handOff();
        if (handed === undefined) return undefined;
        this.#remove(id, false, true);
        this.#remote.set(id, to);
        return { client: id, session: handed };
      },
      presented: (first) => presentedSession(first),
      // A session of this process presented on another's socket, relayed here (`socket`): resumed on it, if held.
      resume: (first, socket) => !this.#destroyed && this.#resume(first, socket),
      error: (code, message, data) => new RPCError(code, message, data),
      codes: ErrorCode,
      timeout: this.#options?.timeout,
    };
  }

  /** The ids of the clients connected now (to every process of a cluster), in the order they came. */
  get clients() {
    return [...this.#clients.keys(), ...this.#remote.keys()];
  }

  /**
   * The node (process) client `id` is connected to: the cluster engine's id
   * for this process; undefined for an unknown client, or any client of a
   * hub without a cluster.
   */
  nodeOf(id) {
    if (this.#clients.has(id)) return this.#cluster?.node;
    return this.#remote.get(id);
  }

  /**
   * Serves `name` to every client, now and later. The handler's context has
   * `client`, the id of the caller (and `signal`, `emit` as usual).
   */
  method(name, handler, info) {
    this.#register("method", name, handler, info);
  }

  /**
   * Adds a middleware around the calls (and notifications) of every
   * client, now and later, as a Peer's `use`: `call.client` and
   * `call.context.client` name the client, so a middleware can check who
   * calls (and what its metadata claims) before the handler runs.
   */
  use(middleware) {
    if (typeof middleware !== "function") throw new TypeError("middleware must be a function");
    this.#middleware.push(middleware);
    for (const [id, { peer }] of this.#clients) usedBy(peer, id, middleware);
    return this;
  }

  /** Adds an interceptor around the calls the hub makes to each of its clients, as a Peer's `intercept`. */
  intercept(interceptor) {
    if (typeof interceptor !== "function") throw new TypeError("interceptor must be a function");
    this.#interceptors.push(interceptor);
    for (const { peer } of this.#clients.values()) chains(peer).intercept(interceptor);
    return this;
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
    // The call's own context, the client named in it (a copy would ask for its signal).
    if (kind === "method") peer.method(name, (params, context) => handler(params, Object.assign(context, { client: id })), info);
    else peer.onNotify(name, (params) => handler(params, id), info);
  }

  /**
   * A new client on `transport`: its Peer serves every method. Returns its
   * id (`id`, or a fresh one). When the transport emits `close`, the client
   * is gone (see `drop`).
   */
  accept(transport, id) {
    return this.#accept(transport, id, false);
  }

  // `moved`: a client of another process whose session was handed over here (no `connection`: it was connected).
  #accept(transport, id, moved) {
    if (this.#destroyed) throw new Error("hub destroyed");
    // Ids are unique across a cluster: each process prefixes its own.
    const prefix = this.#cluster === undefined ? "" : `${this.#cluster.node}/`;
    id = id === undefined ? `${prefix}client-${++this.#next}` : String(id);
    if (this.#clients.has(id) || (!moved && this.#remote.has(id))) throw new Error(`a client ${id} is connected already`);
    this.#remote.delete(id);
    const peer = new Peer(transport, this.#options);
    // `gone` ends what waits on this client (a lock wait) when it is dropped.
    const client = { peer, transport, unwatch: undefined, gone: new AbortController(), session: transport.session?.id };
    this.#clients.set(id, client);
    if (client.session !== undefined) this.#sessions.set(client.session, id);
    for (const middleware of this.#middleware) usedBy(peer, id, middleware);
    for (const interceptor of this.#interceptors) chains(peer).intercept(interceptor);
    for (const [kind, name, handler, info] of this.#handlers) this.#serve(peer, id, kind, name, handler, info);
    try {
      const offClose = peer.on("close", (detail) => this.#closed(id, detail));
      const offEnd = peer.on("sessionend", () => this.drop(id));
      client.unwatch = () => {
        offClose();
        offEnd();
      };
    } catch {
      // A transport without events: the application calls drop(id).
    }
    if (!moved) this.#listeners.emit("connection", id);
    this.#cluster?.connected(id, client.session);
    return id;
  }

  /**
   * A client's connection closed. Its session (if the core kept it going:
   * the Peer still names it) waits for the client to reconnect, up to
   * `sessions.max` of them; a client that closed on purpose (1000, or 1001:
   * its page went away) is gone.
   */
  #closed(id, detail) {
    const client = this.#clients.get(id);
    if (client === undefined) return;
    const left = detail?.code === 1000 || detail?.code === 1001;
    if (left || client.peer.session === undefined) return void this.drop(id);
    this.#away.delete(id);
    this.#away.add(id);
    const most = this.#sessionOptions?.max ?? DEFAULT_MAX_AWAY;
    for (const oldest of this.#away) {
      if (this.#away.size <= most) break;
      this.drop(oldest);
    }
  }

  /** What `attach()` was told about sessions (`false`: none). */
  #sessionOptions;

  /**
   * A socket of an attached server: its first message says whether it
   * resumes a session this hub holds (its socket then goes to that client)
   * or is a new client, which is offered a session of its own.
   */
  #take(socket, name) {
    if (this.#leaving) return void socket.close(1012);
    this.#sockets.add(socket);
    socket.addEventListener("close", () => this.#sockets.delete(socket));
    const options = this.#sessionOptions;
    if (options === false) return void this.accept(webSocketTransport(socket), name);
    let timer;
    const decide = (first) => {
      socket.removeEventListener("message", onFirst);
      socket.removeEventListener("close", onClose);
      socket.removeEventListener("error", onError);
      clearTimeout(timer);
      if (this.#destroyed) return void socket.close(1001);
      if (first !== undefined && this.#resume(first.data, socket)) return;
      const presented = first === undefined ? undefined : presentedSession(first.data);
      // Perhaps another process's session (its client reconnected here): the cluster engine relays it there, or calls `fresh`.
      if (presented !== undefined && this.#cluster?.take !== undefined) return void this.#cluster.take(socket, first.data, presented, fresh);
      fresh(first === undefined ? [] : [first.data]);
    };
    // A new client with a session of its own (or, `handed`, the session and id another process handed over);
    // `frames` delivered to its Peer ahead of anything that follows.
    const fresh = (frames, handed) => {
      const transport = webSocketTransport(socket);
      transport.session = handed === undefined ? { id: crypto.randomUUID(), grace: options?.grace, maxKept: options?.maxKept }
        : { id: handed.session.id, handed: handed.session };
      this.#accept(transport, handed?.client ?? name, handed !== undefined);
      for (const data of frames) transport.deliver(data);
    };
    const onFirst = (event) => decide(event);
    const onClose = () => {
      socket.removeEventListener("message", onFirst);
      socket.removeEventListener("error", onError);
      clearTimeout(timer);
    };
    // A socket's error (a first frame past `maxPayload`) is followed by its close: nothing to add.
    const onError = () => {};
    socket.addEventListener("message", onFirst);
    socket.addEventListener("close", onClose);
    socket.addEventListener("error", onError);
    // A client that says nothing is taken as it is after a while.
    timer = setTimeout(() => decide(undefined), options?.wait ?? DEFAULT_FIRST_MESSAGE_WAIT);
  }

  /** Resumes the session held here that `first` (a socket's first message) presents, on `socket`; whether it is held. */
  #resume(first, socket) {
    const id = this.#sessions.get(presentedSession(first));
    const owner = this.#clients.get(id);
    if (owner === undefined) return false;
    this.#away.delete(id);
    owner.transport.adopt(socket);
    owner.transport.deliver(first);
    return true;
  }

  /**
   * The client `id` is gone: the calls waiting on it fail with
   * `CONNECTION_CLOSED`, as they do when its socket closes (a page that
   * closed, a peer that left, however the hub learnt it), its Peer and
   * transport are destroyed, `disconnection` is emitted. Returns whether it
   * was connected.
   */
  drop(id) {
    return this.#remove(id, true);
  }

  // `moved`: its session went to another process, which announces the client.
  #remove(id, gone, moved) {
    const client = this.#clients.get(id);
    if (client === undefined) return false;
    this.#clients.delete(id);
    this.#away.delete(id);
    if (client.session !== undefined) this.#sessions.delete(client.session);
    client.unwatch?.();
    client.gone.abort();
    // One meaning per code: the other side went (CONNECTION_CLOSED), not
    // this side's destroy() (DESTROYED, when the hub itself is destroyed).
    const { transport } = client;
    if (gone && typeof transport?.emit === "function") transport.emit("close", { reason: "client gone" });
    client.peer.destroy();
    if (moved) return true;
    if (!this.#destroyed) this.#cluster?.disconnected(id, client.session);
    this.#listeners.emit("disconnection", id);
    return true;
  }

  /** The Peer of client `id`, or undefined. */
  peer(id) {
    return this.#clients.get(id)?.peer;
  }

  /** Calls a method of client `id` (through the cluster when it is connected to another process). */
  request(id, method, params, options) {
    const node = this.#clients.has(id) ? undefined : this.#remote.get(id);
    if (node !== undefined) return this.#cluster.request(id, node, method, params, options);
    return this.#requestHere(id, method, params, options);
  }

  #requestHere(id, method, params, options) {
    const peer = this.peer(id);
    if (peer === undefined) return Promise.reject(new RPCError(ErrorCode.CONNECTION_CLOSED, `No client ${id}`));
    return peer.request(method, params, options);
  }

  /** Notifies client `id`; returns whether it is connected (here or, in a cluster, to another process). */
  notify(id, method, params) {
    const peer = this.peer(id);
    if (peer !== undefined) {
      peer.notify(method, params);
      return true;
    }
    const node = this.#remote.get(id);
    if (node === undefined) return false;
    this.#cluster.notify(id, node, method, params);
    return true;
  }

  /** Notifies every client (of every process, in a cluster). */
  notifyAll(method, params) {
    this.#notifyHere(method, params);
    this.#cluster?.notifyAll(method, params);
  }

  #notifyHere(method, params) {
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

  /**
   * `connection` / `disconnection`, with the client's id; `refused`, with
   * `{ origin, host, reason }` of a connection `attach()` turned away.
   * Returns what removes the listener.
   */
  on(event, listener) {
    return this.#listeners.on(event, listener);
  }

  /**
   * Takes the connections of a WebSocket server (Node's `ws`
   * `WebSocketServer`, or anything that emits `connection` with a socket and
   * its request) that belong. Browsers let any site open a socket to
   * localhost and say which site it is in `Origin`, so by default only these
   * get in: a client that sends no `Origin` (Node, Python, an editor:
   * browsers always send one); a page of the server's own origin (its host
   * and port are the request's `Host`); a page whose origin is in
   * `options.origins` (compared as origins: case and a trailing slash do not
   * matter; `"*"` lets every origin in). On a loopback address, a `Host`
   * that is not `localhost`, `127.0.0.1` or `[::1]` is refused as well (DNS
   * rebinding). `options.authenticate(request)` may then refuse (return
   * `false` or throw) or name the client (return its id); it may be async.
   * With `ws`, a refused connection gets HTTP 403 (401 from `authenticate`)
   * before the upgrade; `refused` is emitted with the reason.
   */
  attach(server, options = {}) {
    const origins = options.origins === "*" ? "*" : new Set([].concat(options.origins ?? []).map(originOf));
    const { authenticate } = options;
    this.#sessionOptions = options.sessions === false ? false : options.sessions;
    const named = new WeakMap();
    const wsOptions = server.options;
    // A `verifyClient` the server already had is asked first, and keeps its say.
    const theirs = typeof wsOptions?.verifyClient === "function" ? wsOptions.verifyClient : undefined;
    const asked = (info) => new Promise((resolve) => {
      if (theirs === undefined) resolve(true);
      else if (theirs.length >= 2) theirs(info, (ok, status, reason) => resolve(ok ? true : [status ?? 401, reason ?? "refused"]));
      else resolve(theirs(info) ? true : [401, "refused"]);
    });
    // Why a request may not connect, or undefined when it may.
    const admit = async (request, info) => {
      const reason = refusal(request, origins);
      if (reason !== undefined) return [403, reason];
      if (info !== undefined) {
        const verdict = await asked(info).catch((error) => [500, `verifyClient threw: ${error?.message ?? error}`]);
        if (verdict !== true) return verdict;
      }
      if (authenticate === undefined) return undefined;
      let id;
      try {
        id = await authenticate(request);
      } catch (error) {
        return [401, `not authenticated: ${error?.message ?? error}`];
      }
      if (id === false || id === null) return [401, "not authenticated"];
      if (id !== undefined && id !== true) named.set(request, String(id));
      return undefined;
    };
    const refuse = (request, [status, reason]) => {
      const headers = request?.headers ?? {};
      this.#listeners.emit("refused", { origin: headers.origin, host: headers.host, status, reason });
    };
    if (wsOptions !== undefined && typeof wsOptions === "object") {
      // A frame larger than a message may be is cut off by `ws` as its header
      // arrives (close 1009), before any of it is buffered.
      const most = this.#options?.limits?.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
      const maxPayload = wsOptions.maxPayload;
      if (!(maxPayload <= most)) {
        wsOptions.maxPayload = most;
        this.#detach.push(() => (wsOptions.maxPayload = maxPayload));
      }
      const before = wsOptions.verifyClient;
      wsOptions.verifyClient = (info, done) => {
        admit(info.req, info).then((refused) => {
          if (refused === undefined) return done(true);
          refuse(info.req, refused);
          return done(false, refused[0], refused[1]);
        });
      };
      this.#detach.push(() => (wsOptions.verifyClient = before));
    }
    const onConnection = async (socket, request) => {
      // Servers without `ws`'s hook are checked here, after the upgrade.
      if (wsOptions === undefined) {
        const refused = await admit(request ?? {});
        if (refused !== undefined) {
          refuse(request, refused);
          socket.close(1008, refused[1].slice(0, 120));
          return;
        }
      }
      if (!this.#destroyed) this.#take(socket, request && named.get(request));
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

  /**
   * In a service worker: serves every client page that connects with
   * `serviceWorkerTransport`. Call it while the worker's script first runs
   * (a service worker adds its listeners then or never), passing the web
   * build's `init()` as `ready`. Each client's calls arrive as `message`
   * events kept alive (`waitUntil`) until their answers are sent; answers
   * go back over the client's own MessageChannel. This worker instance
   * holds a Web Lock while it lives: when the browser stops it, each page
   * learns so and connects again.
   */
  serveClients(scope = globalThis, ready) {
    const lock = `${SERVICE_WORKER}/${crypto.randomUUID()}`;
    let locked;
    const held = new Promise((resolve) => {
      locked = holdLock(lock, undefined, resolve);
      if (!locked) resolve();
    });
    const started = Promise.all([held, ready]);
    const links = new Map();
    this.on("disconnection", (client) => links.delete(client));
    const onMessage = (event) => {
      const kind = event.data?.[SERVICE_WORKER];
      const client = event.source?.id;
      if (kind === undefined || typeof client !== "string" || this.#destroyed) return;
      event.waitUntil(started.then(() => {
        if (kind === "connect" && event.ports[0] !== undefined) {
          this.drop(client);
          const link = new ClientLink(event.ports[0]);
          links.set(client, link);
          this.accept(link, client);
          event.ports[0].postMessage({ [SERVICE_WORKER]: "connected", lock: locked ? lock : undefined });
          return undefined;
        }
        if (kind !== "message") return undefined;
        const link = links.get(client);
        // A page of a stopped instance: it connects again.
        if (link === undefined) event.source.postMessage({ [SERVICE_WORKER]: "unknown" });
        else return link.receive(event.data.message);
        return undefined;
      }));
    };
    scope.addEventListener("message", onMessage);
    this.#detach.push(() => scope.removeEventListener("message", onMessage));
    return this;
  }

  #acceptPage(port) {
    const id = this.accept(portTransport(port));
    // The page's first message names the lock it holds while it lives.
    const onLock = ({ data }) => {
      const lock = data?.[PAGE_LOCK];
      if (typeof lock !== "string") return;
      port.removeEventListener("message", onLock);
      const client = this.#clients.get(id);
      if (client !== undefined) whenGone(lock, client.gone.signal, () => this.drop(id));
    };
    port.addEventListener("message", onLock);
  }

  /**
   * Before this process stops (a rolling deploy): hands each client's session to
   * the process its client reconnects to, so that none ends; needs an engine that
   * moves sessions (`redisCluster`: its `handOff` says more). Then `destroy()`.
   */
  handOff(options) {
    if (this.#cluster?.handOff === undefined) return Promise.reject(new Error("no cluster engine that moves sessions"));
    this.#leaving = true;
    return this.#cluster.handOff(options);
  }

  /**
   * Drops every client and stops taking connections (attached servers stay
   * up: they are yours); a cluster engine leaves its cluster (the other
   * processes learn at once that this one's clients are gone).
   */
  destroy() {
    if (this.#destroyed) return;
    this.#destroyed = true;
    for (const undo of this.#detach.splice(0)) undo();
    this.#cluster?.destroy();
    this.#remote.clear();
    for (const id of [...this.#clients.keys()]) this.#remove(id, false);
    this.#listeners.clear();
  }
}

// Sessions: how many may wait for their client at once, and how long a new
// socket's first message is waited for before it is taken as a new client.
const DEFAULT_MAX_AWAY = 1000;
const DEFAULT_FIRST_MESSAGE_WAIT = 500;

// The core's default `Limits::max_message_bytes`.
const DEFAULT_MAX_MESSAGE_BYTES = 10 << 20;
