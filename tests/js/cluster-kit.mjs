// What the cluster tests share (cluster.test.mjs, cluster-sessions.test.mjs):
// a redis-server of a test's own on a free port, hub processes forked from
// cluster-node.mjs and ordered over IPC, a TCP proxy in front of them as a
// load balancer would be, and the waits with their bounds.
import { fork } from "node:child_process";
import { once } from "node:events";
import { connect as tcpConnect, createServer } from "node:net";
import assert from "node:assert/strict";
import { Redis } from "ioredis";
import { freePort, startRedisServer } from "../../scripts/redis-server.mjs";

export { freePort };

const NODE_SCRIPT = new URL("./cluster-node.mjs", import.meta.url).pathname;
export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Resolves once `condition()` holds (checked every 10 ms), failing after `ms`. */
export async function until(condition, what, ms = 10000) {
  const deadline = Date.now() + ms;
  while (!(await condition())) {
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await sleep(10);
  }
}

/** `promise`, or a failure saying `what` after `ms`. */
export function within(promise, ms, what) {
  let timer;
  const late = new Promise((_, reject) => (timer = setTimeout(() => reject(new Error(`timed out: ${what}`)), ms)));
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

/** A redis-server of this test's own, on `port` (a free one by default). */
export const startRedis = startRedisServer;

/** Each key under the tests' prefix, with its expiry in ms (-1: none). */
export async function keysOf(redis) {
  const client = new Redis(redis.url, { lazyConnect: true, maxRetriesPerRequest: 0 });
  try {
    await client.connect();
    const keys = await client.keys("test:*");
    return Object.fromEntries(await Promise.all(keys.map(async (key) => [key, await client.pttl(key)])));
  } finally {
    client.disconnect();
  }
}

/** The node each session key of the test's prefix names. */
export async function sessionHolders(redis) {
  const client = new Redis(redis.url, { lazyConnect: true, maxRetriesPerRequest: 0 });
  try {
    await client.connect();
    const keys = await client.keys("test:session:*");
    return keys.length === 0 ? [] : await client.mget(keys);
  } finally {
    client.disconnect();
  }
}

/** A hub process, forked: `order(op, args)` asks it something over IPC. */
export async function startNode(redis, lease, name, more = []) {
  const child = fork(NODE_SCRIPT, [redis.url, String(lease), name, ...more], { stdio: ["ignore", "inherit", "inherit", "ipc"] });
  const waiting = new Map();
  let next = 0;
  child.on("message", (message) => {
    const answer = waiting.get(message.id);
    if (answer === undefined) return;
    waiting.delete(message.id);
    answer(message);
  });
  child.on("exit", (code, signal) => {
    // How it ended, for a failure to say: a code of its own, or the signal that stopped it.
    for (const answer of waiting.values()) answer({ ok: false, error: { message: `${name} exited (${signal ?? `code ${code}`})` } });
    waiting.clear();
  });
  const [{ ready }] = await within(once(child, "message"), 15000, `${name} to start`);
  const node = {
    name,
    child,
    port: ready.port,
    /** Resolves with the order's value; rejects with `{ code, message, data }`. */
    order(op, args = {}, ms = 15000) {
      const id = ++next;
      const answered = new Promise((resolve, reject) => {
        waiting.set(id, (message) => (message.ok ? resolve(message.value) : reject(message.error)));
      });
      child.send({ id, op, ...args });
      return within(answered, ms, `${name} ${op}`);
    },
    kill(signal = "SIGKILL") {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    },
  };
  return node;
}

/** Ends the clients and kills the hub processes, waiting for each to exit. */
export async function end(nodes, clients) {
  for (const { peer } of clients) peer.destroy();
  for (const node of nodes) node.kill();
  const exits = nodes.map(({ child }) => (child.exitCode === null && child.signalCode === null ? within(once(child, "exit"), 5000, "exit") : undefined));
  await Promise.all(exits.map((exit) => exit?.catch(() => {})));
}

/** A TCP proxy on 127.0.0.1: each new connection goes to `target`'s port; `cut()` ends every one it carries. */
export async function startProxy(port) {
  let target = port;
  const carried = new Set();
  const server = createServer((socket) => {
    const upstream = tcpConnect(target, "127.0.0.1");
    const pair = [socket, upstream];
    for (const one of pair) carried.add(one);
    const gone = () => {
      for (const one of pair) {
        one.destroy();
        carried.delete(one);
      }
    };
    socket.on("error", gone).on("close", gone);
    upstream.on("error", gone).on("close", gone);
    socket.pipe(upstream);
    upstream.pipe(socket);
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return {
    port: server.address().port,
    /** Where connections made from now on go. */
    moveTo(node) {
      target = node.port;
    },
    /** Ends every connection it carries, as a dropped link does (no close frame). */
    cut() {
      for (const one of [...carried]) one.destroy();
    },
    close() {
      this.cut();
      return new Promise((resolve) => server.close(resolve));
    },
  };
}
