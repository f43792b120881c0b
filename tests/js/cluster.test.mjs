// A hub across server processes on Redis (`wiggum-rpc/redis`): each test
// starts its own redis-server on a free port of 127.0.0.1 and hub processes
// (tests/js/cluster-node.mjs, forked, each a `ws` server with a Hub joined to
// the others), with real WebSocket clients of the package. Calls to a client
// of another process (answers, errors, timeouts and cancels, a hub method
// calling on), notifications to all from two processes at once, a process
// killed mid-call, a death seen by every process within the lease, a pause
// shorter than the lease evicting nobody and a longer one evicting and
// rejoining, Redis stopped (a call in flight failing then) and started
// again, Redis stalled, a 9 MB notification to all, 1,000 clients leaving at
// once. Bounds are relative to the lease, generous for a loaded machine.
import { createRequire } from "node:module";
import { test } from "node:test";
import assert from "node:assert/strict";
import { WebSocket } from "ws";
import { end, freePort, keysOf, sleep, startNode, startRedis, until, within } from "./cluster-kit.mjs";

const require = createRequire(import.meta.url);
const { Peer, RPCError, ErrorCode } = require("../../pkg/node/wiggum_rpc.cjs");
const { webSocketTransport } = require("../../pkg/node/websocket.cjs");

/** A client Peer over a real WebSocket to `node`, open, and its id there. */
async function connect(node, peerOptions) {
  const transport = webSocketTransport(`ws://127.0.0.1:${node.port}/`, { WebSocket, reconnect: false });
  const peer = new Peer(transport, peerOptions);
  await within(new Promise((resolve) => (transport.connected ? resolve() : peer.on("open", resolve))), 10000, "a client to connect");
  const id = await peer.request("whoami");
  return { peer, id };
}

/** Redis, `count` hub processes and the clients a test connects, all ended when it ends. */
async function cluster(count, lease, run) {
  const redis = await startRedis();
  const nodes = [];
  const clients = [];
  try {
    for (let n = 0; n < count; n++) {
      const node = await startNode(redis, lease, `node-${"abcdefgh"[n]}`);
      nodes.push(node);
      await node.order("joined");
    }
    const join = async (node) => {
      const client = await connect(node);
      clients.push(client);
      return client;
    };
    await run({ redis, nodes, join });
  } finally {
    await end(nodes, clients);
    await redis.stop();
  }
}

/** Waits until every node lists exactly `ids` among its clients, each where `where[id]` says. */
async function seenEverywhere(nodes, where) {
  const wanted = Object.entries(where).sort();
  for (const node of nodes) {
    await until(async () => JSON.stringify((await node.order("clients")).sort()) === JSON.stringify(wanted), `${node.name} to list every client`);
  }
}

test("a call to a client of another process: one answer to each caller, errors, timeouts and cancels carried over; a hub method that calls on; hubs destroyed leave no key", async () => {
  await cluster(3, 1000, async ({ redis, nodes: [a, b, c], join }) => {
    const ca = await join(a);
    const cb = await join(b);
    const ran = [];
    cb.peer.method("greet", ({ name, via }) => {
      ran.push(name);
      return { hello: name, by: cb.id, via };
    });
    cb.peer.method("refuse", () => {
      throw new RPCError(4242, "not today", { why: "closed" });
    });
    const started = [];
    const cancelled = [];
    cb.peer.method("hang", (params, { signal }) => new Promise((resolve) => {
      started.push(params.tag);
      signal.addEventListener("abort", () => {
        cancelled.push(params.tag);
        resolve("cancelled");
      });
    }));
    await seenEverywhere([a, b, c], { [ca.id]: "node-a", [cb.id]: "node-b" });

    // Two processes call the same client at once, twenty times each: each gets its own answers.
    const calls = [];
    for (let n = 0; n < 20; n++) {
      for (const node of [a, c]) calls.push([node, `${node.name}#${n}`]);
    }
    const answers = await Promise.all(calls.map(([node, name]) => node.order("request", { client: cb.id, method: "greet", params: { name } })));
    assert.deepEqual(answers.map(({ hello }) => hello), calls.map(([, name]) => name));
    assert.deepEqual(answers.map(({ by }) => by), calls.map(() => cb.id));
    assert.deepEqual(ran.sort(), calls.map(([, name]) => name).sort(), "the client ran each call once");

    await assert.rejects(a.order("request", { client: cb.id, method: "refuse" }), { code: 4242, message: "not today", data: { why: "closed" } });
    await assert.rejects(a.order("request", { client: cb.id, method: "nothing" }), { code: ErrorCode.METHOD_NOT_FOUND });

    // The caller's timeout holds, and the client hears the cancel (long
    // enough for the call to reach the client first on a loaded machine).
    const begun = Date.now();
    await Promise.all([
      assert.rejects(a.order("request", { client: cb.id, method: "hang", params: { tag: "timed" }, timeout: 1500 }), { code: ErrorCode.REQUEST_TIMEOUT }),
      assert.rejects(a.order("request", { client: cb.id, method: "hang", params: { tag: "aborted" }, abortAfter: 1500 }), { code: ErrorCode.REQUEST_CANCELLED }),
    ]);
    const took = Date.now() - begun;
    assert.ok(took >= 1500 && took < 1500 * 2, `the timeout held: ${took} ms`);
    assert.deepEqual(started.sort(), ["aborted", "timed"], "both calls reached the client");
    await until(() => cancelled.length === 2, "both cancels to reach the client");
    assert.deepEqual(cancelled.sort(), ["aborted", "timed"]);

    // An id no process has fails at once.
    const asked = Date.now();
    await assert.rejects(a.order("request", { client: "node-z/client-1", method: "greet" }), { code: ErrorCode.CONNECTION_CLOSED });
    assert.ok(Date.now() - asked < 1000, "at once");

    // A call to every client of every process: each answers, wherever it is.
    ca.peer.method("greet", ({ name }) => ({ hello: name, by: ca.id }));
    const outcomes = await c.order("requestAll", { method: "greet", params: { name: "all" }, timeout: 5000 });
    assert.deepEqual(outcomes, { [ca.id]: { result: { hello: "all", by: ca.id } }, [cb.id]: { result: { hello: "all", by: cb.id } } });

    // A client's call to a hub method that calls a client of another process.
    const relayed = await ca.peer.request("relay", { to: cb.id, method: "greet", params: { name: "relayed" } });
    assert.deepEqual(relayed, { hello: "relayed", by: cb.id, via: ca.id });

    // Notifications to one client of another process.
    const heard = [];
    cb.peer.onNotify("note", (params) => heard.push(params.text));
    assert.equal(await c.order("notify", { client: cb.id, method: "note", params: { text: "from c" } }), true);
    assert.equal(await c.order("notify", { client: "node-z/client-1", method: "note", params: {} }), false);
    await until(() => heard.length === 1, "the note");
    assert.deepEqual(heard, ["from c"]);

    // Every process heard of both clients once, and where each is.
    for (const node of [a, b, c]) {
      const connections = (await node.order("events")).filter(({ event }) => event === "connection");
      assert.deepEqual(connections.map(({ id, node: where }) => [id, where]).sort(), [[ca.id, "node-a"], [cb.id, "node-b"]]);
    }

    // A hub destroyed leaves its cluster at once: the others drop its client; the last one leaves no key behind.
    await b.order("destroy");
    await seenEverywhere([a, c], { [ca.id]: "node-a" });
    assert.ok(Object.keys(await keysOf(redis)).length > 0);
    await a.order("destroy");
    await c.order("destroy");
    assert.deepEqual(await keysOf(redis), {}, "no key left");
  });
});

test("notifications to all from two processes at once, 500 each: every client gets each once, in its sender's order", async () => {
  await cluster(3, 1000, async ({ nodes: [a, b, c], join }) => {
    const clients = [await join(a), await join(a), await join(b), await join(b), await join(c)];
    const heard = clients.map(() => []);
    clients.forEach(({ peer }, at) => peer.onNotify("tick", ({ from, seq }) => heard[at].push(`${from}:${seq}`)));
    await seenEverywhere([a, b, c], Object.fromEntries(clients.map(({ id }, at) => [id, ["node-a", "node-a", "node-b", "node-b", "node-c"][at]])));
    await Promise.all([a.order("notifyAll", { method: "tick", count: 500 }), b.order("notifyAll", { method: "tick", count: 500 })]);
    await until(() => heard.every((list) => list.length >= 1000), "1,000 notifications at each client", 20000);
    // Anything sent twice would come within a moment.
    await sleep(300);
    const expected = (from) => Array.from({ length: 500 }, (_, seq) => `${from}:${seq}`);
    for (const list of heard) {
      assert.equal(list.length, 1000, "none lost, none twice");
      for (const from of ["node-a", "node-b"]) assert.deepEqual(list.filter((entry) => entry.startsWith(`${from}:`)), expected(from));
    }
  });
});

test("a process killed mid-call: the caller gets CONNECTION_CLOSED within about the lease, the client ran the call once", async () => {
  const lease = 1000;
  await cluster(2, lease, async ({ nodes: [a, b], join }) => {
    const cb = await join(b);
    let runs = 0;
    cb.peer.method("hang", () => {
      runs++;
      return new Promise(() => {});
    });
    await seenEverywhere([a, b], { [cb.id]: "node-b" });
    const call = a.order("request", { client: cb.id, method: "hang" }, 20000);
    await until(() => runs === 1, "the client to run the call");
    const killed = Date.now();
    b.kill("SIGKILL");
    await assert.rejects(call, (error) => {
      assert.equal(error.code, ErrorCode.CONNECTION_CLOSED, error.message);
      return true;
    });
    const took = Date.now() - killed;
    console.log(`the call failed ${took} ms after its client's process was killed (lease ${lease} ms)`);
    assert.ok(took <= lease * 2.5, `within about the lease plus a check: ${took} ms`);
    // The client's process is gone: a new call fails at once.
    const started = Date.now();
    await assert.rejects(a.order("request", { client: cb.id, method: "hang" }), { code: ErrorCode.CONNECTION_CLOSED });
    assert.ok(Date.now() - started < lease, "a new call fails at once");
    assert.equal(runs, 1, "the client ran the call once");
  });
});

test("a process's death is seen by every other within the lease, each of its clients announced gone once on each; every key it wrote expires", async () => {
  const lease = 1000;
  await cluster(3, lease, async ({ redis, nodes: [a, b, c], join }) => {
    const ca = await join(a);
    const cb = await join(b);
    const gone = [await join(c), await join(c)];
    const where = { [ca.id]: "node-a", [cb.id]: "node-b", [gone[0].id]: "node-c", [gone[1].id]: "node-c" };
    await seenEverywhere([a, b, c], where);
    const killed = Date.now();
    c.kill("SIGKILL");
    delete where[gone[0].id];
    delete where[gone[1].id];
    await seenEverywhere([a, b], where);
    // Any second announcement would come within another check.
    await sleep(lease);
    for (const node of [a, b]) {
      const left = (await node.order("events")).filter(({ event }) => event === "disconnection");
      assert.deepEqual(left.map(({ id }) => id).sort(), gone.map(({ id }) => id).sort(), `${node.name}: each of c's clients gone once, no other`);
      const took = Math.max(...left.map(({ at }) => at)) - killed;
      console.log(`${node.name} saw node-c's clients gone ${took} ms after it was killed (lease ${lease} ms)`);
      assert.ok(took <= lease * 2.5, `within about the lease plus a check: ${took} ms`);
    }
    // Nothing of node-c's is left, and whatever is left expires.
    const keys = await keysOf(redis);
    assert.deepEqual(Object.keys(keys).filter((key) => key.includes("node-c")), [], "node-c's keys removed");
    assert.ok(Object.keys(keys).length > 0, "the live nodes' keys are there");
    for (const [key, ttl] of Object.entries(keys)) assert.ok(ttl > 0, `${key} expires (${ttl})`);
  });
});

/** A client on each of nodes `a` and `b`, `b`'s answering `greet`, both seen by both nodes. */
async function greeting(a, b, join) {
  const ca = await join(a);
  const cb = await join(b);
  cb.peer.method("greet", ({ name }) => `hello ${name}`);
  await seenEverywhere([a, b], { [ca.id]: "node-a", [cb.id]: "node-b" });
  return { ca, cb };
}

test("a process paused for less than the lease evicts nobody, and its clients answer after", async () => {
  const lease = 2000;
  await cluster(2, lease, async ({ nodes: [a, b], join }) => {
    const { ca, cb } = await greeting(a, b, join);
    b.kill("SIGSTOP");
    try {
      await sleep(lease / 2);
    } finally {
      b.kill("SIGCONT");
    }
    // Long enough for an eviction, had there been one, to be seen.
    await sleep(lease * 1.5);
    for (const node of [a, b]) {
      const left = (await node.order("events")).filter(({ event }) => event === "disconnection");
      assert.deepEqual(left, [], `${node.name} announced nobody gone`);
    }
    await seenEverywhere([a, b], { [ca.id]: "node-a", [cb.id]: "node-b" });
    assert.equal(await a.order("request", { client: cb.id, method: "greet", params: { name: "after" } }), "hello after");
  });
});

test("a process paused for longer than the lease is announced gone (its calls failing), and joins again when it runs", async () => {
  const lease = 1000;
  await cluster(2, lease, async ({ nodes: [a, b], join }) => {
    const { ca, cb } = await greeting(a, b, join);
    b.kill("SIGSTOP");
    try {
      const call = a.order("request", { client: cb.id, method: "greet", params: { name: "paused" } });
      await assert.rejects(call, { code: ErrorCode.CONNECTION_CLOSED });
      await seenEverywhere([a], { [ca.id]: "node-a" });
    } finally {
      b.kill("SIGCONT");
    }
    const resumed = Date.now();
    await seenEverywhere([a, b], { [ca.id]: "node-a", [cb.id]: "node-b" });
    console.log(`node-b's client was back on node-a ${Date.now() - resumed} ms after node-b ran again (lease ${lease} ms)`);
    const seen = (await a.order("events")).filter(({ id }) => id === cb.id).map(({ event }) => event);
    assert.deepEqual(seen, ["connection", "disconnection", "connection"]);
    assert.equal(await a.order("request", { client: cb.id, method: "greet", params: { name: "back" } }), "hello back");
  });
});

test("a process started while Redis is down serves its own clients, and joins the cluster once Redis is up", async () => {
  const port = await freePort();
  const url = `redis://127.0.0.1:${port}`;
  const nodes = [];
  const clients = [];
  let redis;
  try {
    for (const name of ["node-a", "node-b"]) nodes.push(await startNode({ url }, 1000, name));
    const [a, b] = nodes;
    for (const node of nodes) clients.push(await connect(node));
    const [ca, cb] = clients;
    for (const client of clients) client.peer.method("greet", ({ name }) => `${client.id} greets ${name}`);
    assert.equal(await ca.peer.request("relay", { to: ca.id, method: "greet", params: { name: "itself" } }), `${ca.id} greets itself`);
    assert.deepEqual(await a.order("clients"), [[ca.id, "node-a"]], "only its own client");
    await assert.rejects(a.order("request", { client: cb.id, method: "greet" }), { code: ErrorCode.CONNECTION_CLOSED });
    redis = await startRedis(port);
    await Promise.all(nodes.map((node) => node.order("joined")));
    await seenEverywhere(nodes, { [ca.id]: "node-a", [cb.id]: "node-b" });
    assert.equal(await a.order("request", { client: cb.id, method: "greet", params: { name: "a" } }), `${cb.id} greets a`);
    assert.equal(await b.order("request", { client: ca.id, method: "greet", params: { name: "b" } }), `${ca.id} greets b`);
  } finally {
    await end(nodes, clients);
    await redis?.stop();
  }
});

/** Two clients of node-a and one of node-b, each greeting as itself, known to both processes. */
async function greeters(a, b, join) {
  const ca = await join(a);
  const ca2 = await join(a);
  const cb = await join(b);
  for (const client of [ca, ca2, cb]) client.peer.method("greet", ({ name }) => `${client.id} greets ${name}`);
  await seenEverywhere([a, b], { [ca.id]: "node-a", [ca2.id]: "node-a", [cb.id]: "node-b" });
  return { ca, ca2, cb };
}

/** Waits until node `a` calls client `cb` of another process again. */
function acrossAgain(a, cb) {
  return until(async () => {
    try {
      return (await a.order("request", { client: cb.id, method: "greet", params: { name: "again" } })) === `${cb.id} greets again`;
    } catch {
      return false;
    }
  }, "calls across processes to work again", 15000);
}

test("Redis stopped: each process serves its own clients, calls across fail fast; Redis back on the same port: they work again", async () => {
  const lease = 1000;
  await cluster(2, lease, async ({ redis, nodes: [a, b], join }) => {
    const { ca, ca2, cb } = await greeters(a, b, join);
    assert.equal(await a.order("request", { client: cb.id, method: "greet", params: { name: "a" } }), `${cb.id} greets a`);

    let hung = 0;
    cb.peer.method("hang", () => {
      hung++;
      return new Promise(() => {});
    });
    const inFlight = a.order("request", { client: cb.id, method: "hang" });
    // Handled now: it fails while Redis is being stopped, before it is awaited.
    inFlight.catch(() => {});
    await until(() => hung === 1, "the call to reach its client");

    const stopped = Date.now();
    await redis.stop();
    // A call waiting for its answer when the connection went fails then, not at a timeout.
    await assert.rejects(inFlight, (error) => {
      assert.equal(error.code, ErrorCode.CONNECTION_CLOSED);
      assert.match(error.message, /cluster is unreachable/);
      return true;
    });
    // "Fast": well before any timeout (this call has none), within the bound the other tests hold a loaded machine to.
    assert.ok(Date.now() - stopped < 2.5 * lease, `the call in flight failed fast (${Date.now() - stopped} ms)`);
    // Both processes have seen their connections go.
    await until(async () => {
      const answers = await Promise.allSettled([a.order("request", { client: cb.id, method: "greet", params: { name: "a" } }),
        b.order("request", { client: ca.id, method: "greet", params: { name: "b" } })]);
      return answers.every(({ status }) => status === "rejected");
    }, "calls across processes to fail");
    const started = Date.now();
    await assert.rejects(a.order("request", { client: cb.id, method: "greet", params: { name: "a" } }), (error) => {
      assert.equal(error.code, ErrorCode.CONNECTION_CLOSED);
      assert.match(error.message, /cluster is unreachable/);
      return true;
    });
    assert.ok(Date.now() - started < 2.5 * lease, `fails fast (${Date.now() - started} ms)`);
    assert.equal(await a.order("request", { client: ca2.id, method: "greet", params: { name: "a" } }), `${ca2.id} greets a`, "local calls go on");
    assert.equal(await ca.peer.request("relay", { to: ca2.id, method: "greet", params: { name: "ca" } }), `${ca2.id} greets ca`);

    const restarted = await startRedis(redis.port);
    try {
      const back = Date.now();
      await acrossAgain(a, cb);
      console.log(`calls across processes worked again ${Date.now() - back} ms after Redis was back`);
      assert.equal(await b.order("request", { client: ca.id, method: "greet", params: { name: "b" } }), `${ca.id} greets b`);
      await seenEverywhere([a, b], { [ca.id]: "node-a", [ca2.id]: "node-a", [cb.id]: "node-b" });
    } finally {
      await restarted.stop();
    }
  });
});

test("Redis stalled (SIGSTOP, its connections up): calls across fail at the command timeout (half a lease), not their own; local calls go on; nothing stays pending; after SIGCONT calls across work again", async () => {
  const lease = 1000;
  await cluster(2, lease, async ({ redis, nodes: [a, b], join }) => {
    const { ca, ca2, cb } = await greeters(a, b, join);

    redis.pause();
    try {
      const started = Date.now();
      // Fifty calls across at once, each with a timeout of its own far beyond the bound.
      const outcomes = await Promise.allSettled(Array.from({ length: 50 }, (_, n) =>
        a.order("request", { client: cb.id, method: "greet", params: { name: `n${n}` }, timeout: 20_000 })));
      const took = Date.now() - started;
      assert.ok(outcomes.every(({ status, reason }) => status === "rejected" && reason.code === ErrorCode.CONNECTION_CLOSED), JSON.stringify(outcomes.slice(0, 2)));
      console.log(`50 calls across a stalled Redis failed in ${took} ms (command timeout ${lease / 2} ms)`);
      assert.ok(took < 2.5 * lease, `failed fast (${took} ms)`);
      assert.deepEqual(await a.order("pending"), { calls: 0, serving: 0, relays: 0 }, "nothing left waiting");
      assert.equal(await a.order("request", { client: ca2.id, method: "greet", params: { name: "a" } }), `${ca2.id} greets a`, "local calls go on");
    } finally {
      redis.resume();
    }
    await acrossAgain(a, cb);
    await seenEverywhere([a, b], { [ca.id]: "node-a", [ca2.id]: "node-a", [cb.id]: "node-b" });
  });
});

test("a 9 MB notification to all crosses processes as it goes on one; 1,000 clients of one process leaving at once are seen gone by the other", async () => {
  const lease = 1000;
  await cluster(2, lease, async ({ nodes: [a, b], join }) => {
    const ca = await join(a);
    const cb = await join(b);
    const sizes = { [ca.id]: [], [cb.id]: [] };
    for (const client of [ca, cb]) client.peer.onNotify("big", ({ text }) => sizes[client.id].push(text.length));
    await seenEverywhere([a, b], { [ca.id]: "node-a", [cb.id]: "node-b" });
    const bytes = 9 * 1024 * 1024;
    await a.order("notifyAllBig", { method: "big", bytes });
    await until(() => sizes[ca.id].length === 1 && sizes[cb.id].length === 1, "the 9 MB notification on both processes", 20_000);
    assert.deepEqual([sizes[ca.id], sizes[cb.id]], [[bytes], [bytes]]);

    // 1,000 clients on node-a, then all gone at once.
    const many = [];
    for (let n = 0; n < 1000; n++) {
      const transport = webSocketTransport(`ws://127.0.0.1:${a.port}/`, { WebSocket, reconnect: false });
      many.push(new Peer(transport));
    }
    await until(async () => (await b.order("clients")).length === 1002, "node-b to see 1,002 clients", 30_000);
    const left = Date.now();
    for (const peer of many) peer.destroy();
    await until(async () => (await b.order("clients")).length === 2, "node-b to see them gone", 30_000);
    console.log(`1,000 clients gone from node-a seen gone on node-b in ${Date.now() - left} ms`);
    const events = await b.order("events");
    const gone = events.filter((event) => event.event === "disconnection");
    assert.equal(gone.length, 1000, "one disconnection each");
    assert.equal(new Set(gone.map((event) => event.id)).size, 1000);
    assert.equal(await b.order("request", { client: ca.id, method: "whoami" }).catch((error) => error.code), ErrorCode.METHOD_NOT_FOUND, "the cluster still calls across");
  });
});
