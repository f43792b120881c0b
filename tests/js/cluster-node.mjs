// One hub process of the cluster tests (tests/js/cluster.test.mjs): a `ws`
// server on a free port of 127.0.0.1 with a Hub joined to the others on
// Redis, taking its orders over IPC from the test that forked it.
//
//   node tests/js/cluster-node.mjs <redis url> <lease ms> <node id> [<session grace ms>]
// With a grace, the hub grants sessions (kept that long after a socket drops).
import { createRequire } from "node:module";
import { WebSocketServer } from "ws";

const require = createRequire(import.meta.url);
const { Hub } = require("../../pkg/node/hub.cjs");
const { redisCluster } = require("../../pkg/node/redis.cjs");

const [url, lease, node, grace] = process.argv.slice(2);
const cluster = redisCluster({ url, lease: Number(lease), node, prefix: "test" });
const hub = new Hub({ cluster });
const events = [];
hub.on("connection", (id) => events.push({ event: "connection", id, node: hub.nodeOf(id), at: Date.now() }));
hub.on("disconnection", (id) => events.push({ event: "disconnection", id, at: Date.now() }));

// A client's call that calls another client, wherever it is connected.
hub.method("relay", ({ to, method, params }, { client }) => hub.request(to, method, { ...params, via: client }));
hub.method("whoami", (params, { client }) => client);
// What ran here, by method: a call that runs twice shows.
const runs = {};
const ran = (name) => (runs[name] = (runs[name] ?? 0) + 1);
hub.method("slow", async ({ ms, tag }) => {
  ran(`slow ${tag}`);
  await new Promise((resolve) => setTimeout(resolve, ms));
  return { tag, node };
});
hub.method("count", ({ tag }) => ({ tag, runs: ran(`count ${tag}`), node }));

const wss = new WebSocketServer({ host: "127.0.0.1", port: 0 });
// Room for the 2,000 notifications of the notify-all test while a client is away (the default keeps 1,000).
hub.attach(wss, { sessions: grace === undefined ? false : { grace: Number(grace), maxKept: 5000 } });
await new Promise((resolve) => wss.once("listening", resolve));

/** Each order, by its `op`; what it returns is the answer. */
const orders = {
  /** Resolves once the hub has joined its cluster (Redis may be down when the process starts). */
  joined: () => cluster.ready.then(() => true),
  async request({ client, method, params, timeout, abortAfter }) {
    const signal = abortAfter === undefined ? undefined : AbortSignal.timeout(abortAfter);
    return hub.request(client, method, params, { timeout, signal });
  },
  notify: ({ client, method, params }) => hub.notify(client, method, params),
  requestAll: ({ method, params, timeout }) => hub.requestAll(method, params, { timeout }),
  /** Notifies every client once with a text of `bytes` characters. */
  notifyAllBig({ method, bytes }) {
    hub.notifyAll(method, { text: "x".repeat(bytes) });
    return true;
  },
  /** `count` notifications to all, numbered; `every` ms apart (0: at once). */
  async notifyAll({ method, count, every = 0 }) {
    for (let seq = 0; seq < count; seq++) {
      hub.notifyAll(method, { from: node, seq });
      if (every > 0) await new Promise((resolve) => setTimeout(resolve, every));
    }
  },
  clients: () => hub.clients.map((id) => [id, hub.nodeOf(id)]),
  runs: () => runs,
  /** Calls `method` of a client `count` times, one after another: each call's latency in ms (bench/cluster.mjs). */
  async timed({ client, method, count }) {
    const took = [];
    for (let n = 0; n < count; n++) {
      const started = performance.now();
      await hub.request(client, method, [n]);
      took.push(performance.now() - started);
    }
    return took;
  },
  /** Notifies every client once: the time it was sent (ms since the epoch, sub-ms). */
  notifyAllAt({ method }) {
    const at = performance.timeOrigin + performance.now();
    hub.notifyAll(method, { at });
    return at;
  },
  pending: () => cluster.pending,
  /** Pushes `count` notifications to a client, numbered from `from`, without waiting. */
  push({ client, count, from = 0 }) {
    for (let seq = from; seq < from + count; seq++) hub.notify(client, "push", { seq, node });
    return true;
  },
  events: () => events,
  /** Hands every session over to the processes its clients redial to (a rolling deploy's stop). */
  handOff: ({ wait }) => hub.handOff({ wait }),
  destroy: async () => {
    hub.destroy();
    await cluster.closed;
  },
};

process.on("message", async ({ id, op, ...args }) => {
  try {
    const value = await orders[op](args);
    process.send({ id, ok: true, value });
  } catch (error) {
    process.send({ id, ok: false, error: { code: error?.code, message: String(error?.message ?? error), data: error?.data } });
  }
});

process.send({ ready: { port: wss.address().port, node } });
