// A hub across server processes on Redis, the package's `wiggum-rpc/redis`
// entry (Node only): `redisCluster()` is the engine a `Hub` takes as its
// `cluster` option. It owns what the processes say to each other over Redis
// pub/sub (calls, their answers and cancels, notifications, who is
// connected where) and each process's lease, by which the others learn that
// it is gone. The hub keeps its own clients; the engine tells it of the
// others'.
//
// The Redis client is ioredis (an optional peer dependency of the package),
// for what the engine leans on: after a reconnect it subscribes again by
// itself (`autoResubscribe`), and with `enableOfflineQueue: false` a command
// fails at once while Redis is unreachable instead of waiting in a queue, so
// a call across processes fails fast rather than at its timeout.
//
// Keys and channels, under `prefix` (every key has an expiry):
//   <prefix>:nodes          the set of live nodes (PX 3 leases, renewed by each)
//   <prefix>:lease:<node>   a node's lease (PX lease, renewed every lease/4)
//   <prefix>:clients:<node> a node's client ids (PX 3 leases, renewed with the lease)
//   <prefix>:session:<hash> the node whose Peer holds a session (PX 3 leases, renewed with the lease)
//   <prefix>:node:<node>    channel: calls, answers, cancels and notifications to one node,
//                           and the frames of relayed sockets (redis-relays.js)
//   <prefix>:all            channel: presence and notifications to all

import { Redis } from "ioredis";
import { randomUUID } from "node:crypto";
import { HandOver } from "./redis-handoff.js";
import { Relays, sessionHash } from "./redis-relays.js";

/** Removes a node from the set of nodes if, and only if, its lease has lapsed: 1 if it was removed. */
const EVICT = `if redis.call("exists", KEYS[1]) == 0 then return redis.call("srem", KEYS[2], ARGV[1]) else return 0 end`;
/** Deletes a session's key if, and only if, it names this node. */
const FORGET = `if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("del", KEYS[1]) else return 0 end`;

class RedisCluster {
  /** This process's id in the cluster. */
  node;
  /** Resolves once this node has joined (subscribed, leased, announced its clients and learnt the others'). */
  ready;
  /** The Redis server, as ioredis reads it (its default when undefined). */
  #url;
  /** The options of both connections. */
  #options;
  #lease;
  #prefix;
  /** The connection for commands and publishing (one, so that what this node sends stays in order). */
  #pub;
  /** The connection in subscriber mode. */
  #sub;
  /** The hub's side (see Hub: its own clients, and what it is told of the others'). */
  #hub;
  /** Node → the ids of its clients, for every other node known. */
  #nodes = new Map();
  /** Call number → a call this node made to a client of another node. */
  #calls = new Map();
  #nextCall = 0;
  /** The number of this node's last notification to all. */
  #sentAll = 0;
  /** `<from>/<call>` → what cancels a call this node runs for another. */
  #serving = new Map();
  #timers = [];
  #offs = [];
  #joined = false;
  /** This node's list of clients has been sent (from then on, each change is told). */
  #announced = false;
  #destroyed = false;
  #resolveReady;
  /** The sockets relayed between this node and others, for sessions that moved. */
  #relays;
  /** Set by `handOff()`: this node is leaving, handing its sessions over. */
  #handOver;

  constructor({ url, lease = 5000, prefix = "wiggum-rpc", node = randomUUID(), redis = {} } = {}) {
    if (!(Number.isFinite(lease) && lease >= 100)) throw new RangeError("lease must be a number of ms, at least 100");
    this.node = String(node);
    this.#lease = lease;
    this.#prefix = prefix;
    this.#options = {
      // Commands fail at once while Redis is unreachable (see the header).
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      // A Redis that stalls (paused, swapping, a network that drops without a
      // reset) fails commands after half a lease: a call across processes fails
      // then, not at its own timeout, and nothing waits on it without bound.
      commandTimeout: Math.max(50, lease / 2),
      // Reconnects soon after Redis is back: within a quarter of a lease.
      retryStrategy: (times) => Math.min(times * 50, Math.max(100, lease / 4)),
      lazyConnect: true,
      ...redis,
    };
    this.#url = url;
    this.ready = new Promise((resolve) => (this.#resolveReady = resolve));
    this.#relays = new Relays(this.node, (node, message) => this.#pub.publish(this.#channelOf(node), JSON.stringify(message)));
  }

  #sessionKey(session) {
    return this.#key("session", sessionHash(session));
  }

  #key(...parts) {
    return [this.#prefix, ...parts].join(":");
  }

  get #all() {
    return this.#key("all");
  }

  #channelOf(node) {
    return this.#key("node", node);
  }

  get #reachable() {
    return this.#pub?.status === "ready" && this.#sub?.status === "ready";
  }

  /** Called by the hub it is given to, once. */
  start(hub) {
    if (this.#hub !== undefined) throw new Error("a cluster engine serves one hub");
    this.#hub = hub;
    const connect = () => (this.#url === undefined ? new Redis(this.#options) : new Redis(this.#url, this.#options));
    this.#pub = connect();
    this.#sub = connect();
    const listen = (emitter, event, listener) => {
      emitter.on(event, listener);
      this.#offs.push(() => emitter.off(event, listener));
    };
    // Errors are the connections' to report: each is followed by a
    // reconnect, and what failed meanwhile failed fast with its own error.
    listen(this.#pub, "error", () => {});
    listen(this.#sub, "error", () => {});
    listen(this.#sub, "message", (channel, text) => this.#received(channel, text));
    // Answers may have been lost with the connection: the calls waiting for them fail now.
    const lost = () => {
      this.#failCalls(() => true, `the cluster is unreachable (Redis connection lost)`);
      // Frames may have been lost with it: the clients redial, and their sessions replay them.
      this.#relays.endAll(1013, "the cluster is unreachable: try again later");
    };
    listen(this.#pub, "close", lost);
    listen(this.#sub, "close", lost);
    // Back after an outage (Redis restarted, or this node was cut off): join again.
    const back = () => {
      if (!this.#joined || !this.#reachable) return;
      this.#rejoined = Date.now();
      this.#join().catch(() => {});
    };
    listen(this.#pub, "ready", back);
    listen(this.#sub, "ready", back);
    this.#first().catch(() => {});
    const every = (ms, run) => {
      const timer = setInterval(() => {
        if (this.#joined && this.#reachable) run().catch(() => {});
      }, ms);
      timer.unref?.();
      this.#timers.push(timer);
    };
    every(this.#lease / 4, () => this.#renew());
    every(this.#lease / 4, () => this.#check());
  }

  /** Connects both connections (retrying until Redis answers), subscribes, joins. */
  async #first() {
    for (;;) {
      if (this.#destroyed) return;
      try {
        for (const connection of [this.#pub, this.#sub]) {
          if (connection.status === "wait" || connection.status === "end") await connection.connect();
        }
        await until(() => this.#reachable || this.#destroyed);
        if (this.#destroyed) return;
        await this.#sub.subscribe(this.#channelOf(this.node), this.#all);
        await this.#join();
        this.#joined = true;
        this.#resolveReady();
        return;
      } catch {
        await sleep(Math.max(50, this.#lease / 10));
      }
    }
  }

  /**
   * Takes (or takes again) this node's place: its lease, its place in the
   * set of nodes, the list of its clients, announced to every node; then
   * learns the others' clients from their lists.
   */
  async #join() {
    const clients = this.#hub.clients();
    const mine = this.#key("clients", this.node);
    const multi = this.#pub.multi()
      .set(this.#key("lease", this.node), "1", "PX", this.#lease)
      .sadd(this.#key("nodes"), this.node)
      .pexpire(this.#key("nodes"), this.#lease * 3)
      .del(mine);
    if (clients.length > 0) multi.sadd(mine, ...clients).pexpire(mine, this.#lease * 3);
    for (const session of this.#hub.sessions()) multi.set(this.#sessionKey(session), this.node, "PX", this.#lease * 3);
    multi.publish(this.#all, JSON.stringify({ kind: "node", node: this.node, clients }));
    const sent = multi.exec();
    // A client that comes or goes from here on is told after this list (one connection keeps the order).
    this.#announced = true;
    await sent;
    const nodes = new Set(await this.#pub.smembers(this.#key("nodes")));
    for (const node of nodes) {
      if (node !== this.node) this.#present(node, await this.#pub.smembers(this.#key("clients", node)));
    }
    for (const node of [...this.#nodes.keys()]) if (!nodes.has(node)) this.#gone(node);
  }

  /** Renews this node's lease; a lease that lapsed, or a node taken out of the set, joins again. */
  async #renew() {
    const mine = this.#key("clients", this.node);
    const multi = this.#pub.multi()
      .set(this.#key("lease", this.node), "1", "PX", this.#lease, "XX")
      .sadd(this.#key("nodes"), this.node)
      .pexpire(this.#key("nodes"), this.#lease * 3)
      .pexpire(mine, this.#lease * 3);
    for (const session of this.#hub.sessions()) multi.pexpire(this.#sessionKey(session), this.#lease * 3);
    const [[, renewed], [, added]] = await multi.exec();
    // The others may have announced this node gone: it tells them its clients again.
    if (renewed === null || added === 1) {
      this.#rejoined = Date.now();
      await this.#join();
    }
  }

  /**
   * Evicts the nodes whose lease lapsed: whoever removes one from the set
   * (SREM, in one script with the lease's check) announces it gone, once.
   * Also learns of nodes it missed, and forgets those that left unheard.
   */
  async #check() {
    const nodes = new Set(await this.#pub.smembers(this.#key("nodes")));
    for (const node of nodes) {
      if (node === this.node) continue;
      const removed = await this.#pub.eval(EVICT, 2, this.#key("lease", node), this.#key("nodes"), node);
      if (removed === 1) {
        nodes.delete(node);
        await this.#pub.multi()
          .del(this.#key("clients", node))
          .publish(this.#all, JSON.stringify({ kind: "gone", node }))
          .exec();
        this.#gone(node);
      } else if (!this.#nodes.has(node)) {
        this.#present(node, await this.#pub.smembers(this.#key("clients", node)));
      }
    }
    for (const node of [...this.#nodes.keys()]) if (!nodes.has(node)) this.#gone(node);
  }

  /** Node `node` has exactly `clients`: the hub hears of each that came or went. */
  #present(node, clients) {
    const now = new Set(clients);
    const before = this.#nodes.get(node) ?? new Set();
    this.#nodes.set(node, now);
    for (const id of before) if (!now.has(id)) this.#hub.left(id, node);
    for (const id of now) if (!before.has(id)) this.#hub.joined(id, node);
  }

  /** Node `node` is gone: each of its clients leaves (once), and the calls waiting on it fail. */
  #gone(node) {
    const clients = this.#nodes.get(node);
    if (clients === undefined) return;
    this.#nodes.delete(node);
    for (const id of clients) this.#hub.left(id, node);
    this.#failCalls((call) => call.node === node, `the process of client %s is gone`);
    this.#relays.gone(node);
  }

  #failCalls(which, message) {
    const { CONNECTION_CLOSED } = this.#hub.codes;
    for (const call of [...this.#calls.values()]) {
      if (which(call)) call.fail(this.#hub.error(CONNECTION_CLOSED, message.replace("%s", call.client)));
    }
  }

  #received(channel, text) {
    let message;
    try {
      message = JSON.parse(text);
    } catch {
      return;
    }
    if (message === null || typeof message !== "object" || this.#destroyed) return;
    if (channel === this.#all) this.#heard(message);
    else if (channel === this.#channelOf(this.node)) this.#addressed(message);
  }

  /** What one node says to all. */
  #heard(message) {
    const { kind, node } = message;
    if (kind === "fence") {
      if (node === this.node) this.#handOver?.heard(message.fence);
      else this.#relays.fenced(message.relay);
    }
    // This node's own notification to all, heard back: where it falls against a hand-over's fence.
    if (node === this.node && kind === "notifyAll") this.#relays.heardOwn(message.seq);
    if (node === this.node || typeof node !== "string") return;
    if (kind === "node" && Array.isArray(message.clients)) this.#present(node, message.clients.map(String));
    else if (kind === "joined") {
      let clients = this.#nodes.get(node);
      if (clients === undefined) this.#nodes.set(node, (clients = new Set()));
      clients.add(message.client);
      this.#hub.joined(message.client, node);
      this.#handOver?.joined(message.client);
    } else if (kind === "left") {
      this.#nodes.get(node)?.delete(message.client);
      this.#hub.left(message.client, node);
    } else if (kind === "gone") this.#gone(node);
    else if (kind === "notifyAll") {
      this.#hub.notifyAll(message.method, message.params);
      this.#relays.heardAll(node, [message.method, message.params]);
    }
  }

  /** What another node says to this one. */
  #addressed(message) {
    const { kind } = message;
    if (kind === "call") this.#serve(message);
    else if (kind === "cancel") this.#serving.get(`${message.from}/${message.call}`)?.abort();
    else if (kind === "notify") this.#hub.notify(message.client, message.method, message.params);
    else if (kind === "result" || kind === "error") this.#calls.get(message.call)?.settle(message);
    else if (kind === "frame" || kind === "hangup") this.#relays.heard(message);
    else if (kind === "handed") this.#relays.handed(message);
    else if (kind === "attach" && typeof message.frames?.[0] === "string") {
      if (this.#handOver === undefined) this.#attach(message);
      // Leaving: the session is handed over to the process its client is connected to now, or else relayed here
      // (what the client sent meanwhile is lost on the way, and sent again by its session once it resumes here).
      else this.#handOver.attach(message, () => this.#attach(message));
    }
  }

  /** A socket relayed here: resumed on the session's Peer; a session not held here (any more) has its key go. */
  #attach(message) {
    if (!this.#relays.attached(message, this.#hub.resume)) this.#forget(message.frames[0]);
  }

  /** Runs another node's call on a client here; publishes its answer to the caller's node. */
  #serve({ from, call, client, method, params, timeout }) {
    const key = `${from}/${call}`;
    const controller = new AbortController();
    this.#serving.set(key, controller);
    const answer = (message) => {
      this.#serving.delete(key);
      if (this.#destroyed) return;
      this.#pub.publish(this.#channelOf(from), JSON.stringify({ ...message, call })).catch(() => {});
    };
    const options = { signal: controller.signal };
    if (typeof timeout === "number") options.timeout = timeout;
    this.#hub.request(String(client), method, params, options).then(
      (result) => answer({ kind: "result", result }),
      (error) => answer({ kind: "error", error: errorOf(error, this.#hub.codes) }),
    );
  }

  /** Calls a method of client `id`, connected to node `node`. */
  request(id, node, method, params, options = {}) {
    const { codes, error } = this.#hub;
    if (this.#destroyed) return Promise.reject(error(codes.DESTROYED, "hub destroyed"));
    if (!this.#reachable) return Promise.reject(error(codes.CONNECTION_CLOSED, `the cluster is unreachable: no call to client ${id}`));
    const { signal } = options;
    if (signal?.aborted) return Promise.reject(error(codes.REQUEST_CANCELLED, "Request cancelled"));
    const timeout = options.timeout ?? this.#hub.timeout;
    const number = ++this.#nextCall;
    return new Promise((resolve, reject) => {
      let timer;
      const onAbort = () => {
        cancel();
        call.fail(error(codes.REQUEST_CANCELLED, "Request cancelled"));
      };
      const cancel = () => {
        const text = JSON.stringify({ kind: "cancel", from: this.node, call: number });
        this.#pub.publish(this.#channelOf(node), text).catch(() => {});
      };
      const end = () => {
        this.#calls.delete(number);
        clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
      };
      const call = {
        node,
        client: id,
        settle: (message) => {
          end();
          if (message.kind === "result") resolve(message.result);
          else {
            const { code, message: text, data } = message.error ?? {};
            reject(error(Number.isInteger(code) ? code : codes.INTERNAL_ERROR, String(text ?? "error"), data));
          }
        },
        fail: (failure) => {
          end();
          reject(failure);
        },
      };
      this.#calls.set(number, call);
      signal?.addEventListener("abort", onAbort, { once: true });
      if (typeof timeout === "number" && timeout > 0) {
        timer = setTimeout(() => {
          cancel();
          call.fail(error(codes.REQUEST_TIMEOUT, `Request timed out after ${timeout} ms`));
        }, timeout);
      }
      const text = JSON.stringify({ kind: "call", from: this.node, call: number, client: id, method, params, timeout: options.timeout });
      this.#pub.publish(this.#channelOf(node), text).then(
        // Nobody subscribed to the node's channel: its process is gone.
        (receivers) => receivers === 0 && call.fail(error(codes.CONNECTION_CLOSED, `the process of client ${id} is gone`)),
        () => call.fail(error(codes.CONNECTION_CLOSED, `the cluster is unreachable: no call to client ${id}`)),
      );
    });
  }

  /** Notifies client `id`, connected to node `node` (lost while Redis is unreachable). */
  notify(id, node, method, params) {
    if (this.#destroyed || !this.#reachable) return;
    this.#pub.publish(this.#channelOf(node), JSON.stringify({ kind: "notify", client: id, method, params })).catch(() => {});
  }

  /** Notifies the clients of every other node, in the order of this node's calls (one connection publishes). */
  notifyAll(method, params) {
    if (this.#destroyed || !this.#reachable) return;
    // Numbered, so that a session being handed over here can tell its echo (redis-relays.js `sentAll`).
    const seq = ++this.#sentAll;
    this.#relays.sentAll(seq, [method, params]);
    this.#pub.publish(this.#all, JSON.stringify({ kind: "notifyAll", node: this.node, method, params, seq })).catch(() => {});
  }

  /** A client connected to this node (its session, if it has one, is held here). */
  connected(id, session) {
    this.#tell("joined", id, (multi, mine) => {
      multi.sadd(mine, id).pexpire(mine, this.#lease * 3);
      if (session !== undefined) multi.set(this.#sessionKey(session), this.node, "PX", this.#lease * 3);
    });
  }

  /** A client of this node is gone (and its session with it). */
  disconnected(id, session) {
    this.#tell("left", id, (multi, mine) => {
      multi.srem(mine, id);
      if (session !== undefined) multi.del(this.#sessionKey(session));
    });
  }

  /** When this node last joined again (Redis restarted, or its lease lapsed). */
  #rejoined = -Infinity;

  /**
   * The node whose Peer holds the session a socket's first frame presents:
   * null when none does (no key, this node, or a node known gone);
   * undefined while Redis cannot be asked, or for a lease after this node
   * joined again: a Redis that restarted lost the keys, and the holder may
   * not have written its own again yet (the client tries again meanwhile).
   */
  async #homeOf(session) {
    if (this.#destroyed || !this.#reachable) return undefined;
    try {
      const node = await this.#pub.get(this.#sessionKey(session));
      if (node !== null && node !== this.node && this.#nodes.has(node)) return node;
      return Date.now() - this.#rejoined < this.#lease ? undefined : null;
    } catch {
      return undefined;
    }
  }

  /**
   * A socket whose first frame (`first`) presents a session this process
   * does not hold: another process may (its client reconnected here,
   * through a load balancer). Asked where it lives, the socket is relayed
   * there, whose Peer resumes the session as if the client had reconnected
   * to it; a session nobody holds gets a new one (`fresh(frames)`, which the
   * core answers so that the client knows its session ended). While Redis
   * cannot be asked, the socket is closed (1013, try again later): the
   * client redials, its session kept.
   */
  take(socket, first, session, fresh) {
    const early = [];
    let closed = false;
    const hold = (event) => early.push(event.data);
    const onClose = () => (closed = true);
    socket.addEventListener("message", hold);
    socket.addEventListener("close", onClose);
    this.#homeOf(session).then((home) => {
      socket.removeEventListener("message", hold);
      socket.removeEventListener("close", onClose);
      if (closed) return;
      if (this.#destroyed) socket.close(1001);
      else if (home === undefined) socket.close(1013, "the cluster is unreachable: try again later");
      else if (home === null) fresh([first, ...early]);
      else this.#relays.open(home, socket, [first, ...early], (handed, frames, missed) => this.#takeOver(fresh, handed, frames, missed));
    });
  }

  /** A session handed over by the process that held it: its Peer here, then the notifications to all it missed meanwhile. */
  #takeOver(fresh, handed, frames, missed) {
    try {
      fresh(frames, handed);
    } catch {
      // Not a session this build takes: the client gets one of its own (and learns its session ended).
      return void fresh(frames);
    }
    for (const [method, params] of missed) this.#hub.notify(handed.client, method, params);
  }

  /**
   * Leaves the cluster without ending a session: every client's socket
   * closes (1012), each client redials and reaches another process, which
   * takes its session over (what it keeps, its calls and pushes) once its
   * handlers here have answered. Resolves with \`{ handed, kept }\` once no
   * session is held here, or after \`wait\` ms (10 s): \`kept\`, the sessions
   * whose client did not come back in time, end with this process. New
   * sockets are closed (1012) meanwhile. Call the hub's \`destroy()\` after.
   */
  handOff({ wait = 10_000 } = {}) {
    if (this.#destroyed) return Promise.reject(new Error("the cluster engine is destroyed"));
    const publish = (to, message) => this.#pub.publish(to === undefined ? this.#all : this.#channelOf(to), JSON.stringify(message));
    const moved = (client) => this.#pub.srem(this.#key("clients", this.node), client).catch(() => {});
    this.#handOver ??= new HandOver(this.node, this.#hub, publish, moved);
    return this.#handOver.leave(wait, () => this.#relays.hangUpAll(1012, "the process is restarting"));
  }

  /** Removes the key of the session `first` presents, if it still names this node. */
  #forget(first) {
    const session = this.#hub.presented(first);
    if (session === undefined || !this.#reachable) return;
    this.#pub.eval(FORGET, 1, this.#sessionKey(session), this.node).catch(() => {});
  }

  /** Updates this node's list of clients and says so to all (while unreachable: told when it joins again). */
  #tell(kind, id, update) {
    if (this.#destroyed || !this.#announced || !this.#reachable) return;
    const multi = this.#pub.multi();
    update(multi, this.#key("clients", this.node));
    multi.publish(this.#all, JSON.stringify({ kind, node: this.node, client: id })).exec().catch(() => {});
  }

  /**
   * Leaves the cluster: says so (the others drop this node's clients at
   * once), fails the calls waiting on others, closes both connections.
   * Resolves once the connections are closed.
   */
  destroy() {
    if (this.#destroyed) return this.closed;
    this.#destroyed = true;
    for (const timer of this.#timers.splice(0)) clearInterval(timer);
    for (const controller of this.#serving.values()) controller.abort();
    this.#serving.clear();
    this.#relays.endAll(1001, "the process is leaving");
    if (this.#hub !== undefined) {
      const { codes, error } = this.#hub;
      for (const call of [...this.#calls.values()]) call.fail(error(codes.DESTROYED, "hub destroyed"));
    }
    this.#nodes.clear();
    const pub = this.#pub;
    const sub = this.#sub;
    // The sessions held here end with this process (the hub drops their clients): their keys go too, where they still name it.
    const held = this.#hub?.sessions() ?? [];
    const leave = async () => {
      if (pub?.status === "ready") {
        const multi = pub.multi()
          .del(this.#key("lease", this.node))
          .srem(this.#key("nodes"), this.node)
          .del(this.#key("clients", this.node));
        for (const session of held) multi.eval(FORGET, 1, this.#sessionKey(session), this.node);
        await multi
          .publish(this.#all, JSON.stringify({ kind: "gone", node: this.node }))
          .exec()
          .catch(() => {});
      }
      for (const off of this.#offs.splice(0)) off();
      // No more errors are reported; one that comes while closing is ignored.
      for (const connection of [pub, sub]) connection?.on("error", () => {});
      await Promise.all([pub, sub].map((connection) => connection?.quit().catch(() => connection.disconnect())));
    };
    this.closed = leave();
    return this.closed;
  }

  /** Resolves once `destroy()` has closed the connections. */
  closed;

  /** What this node has in flight: its calls to other nodes' clients, the calls it runs for them, its relayed sockets. */
  get pending() {
    return { calls: this.#calls.size, serving: this.#serving.size, relays: this.#relays.size };
  }
}

/** An error as it crosses processes: its code, message and data. */
function errorOf(error, codes) {
  const code = Number.isInteger(error?.code) ? error.code : codes.INTERNAL_ERROR;
  const out = { code, message: String(error?.message ?? error) };
  if (error?.data !== undefined) out.data = error.data;
  return out;
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(condition) {
  while (!condition()) await sleep(20);
}

/**
 * The engine of a hub across processes on one Redis (`url`, as ioredis
 * reads it): `new Hub({ cluster: redisCluster({ url, lease }) })`. Each
 * process keeps a lease of `lease` ms (5000), renewed every quarter of it;
 * a process whose lease lapsed is announced gone. `prefix` names the keys
 * and channels (one cluster per prefix); `node` this process's id (a random
 * UUID); `redis`, more ioredis options.
 */
export function redisCluster(options) {
  return new RedisCluster(options);
}
