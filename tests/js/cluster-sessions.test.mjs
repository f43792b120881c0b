// Sessions that move between the processes of a hub on Redis: each test
// starts its own redis-server and three hub processes granting sessions
// (tests/js/cluster-node.mjs), and a TCP proxy in front of them, as a load
// balancer would be, which cuts a client's connection and sends its redial
// to another process. The client keeps its id and its calls: the process
// holding its session is relayed the new socket, and the session's own
// rules (the core's) replay what was missed, once. A session whose process
// died ends explicitly; a Redis restart only delays a resume.
import { once } from "node:events";
import { createRequire } from "node:module";
import { test } from "node:test";
import assert from "node:assert/strict";
import { WebSocket } from "ws";
import { end, keysOf, sessionHolders, sleep, startNode, startProxy, startRedis, until, within } from "./cluster-kit.mjs";

// A call that never settles fails its test, not the suite: each test ends by this bound.
const TEST_TIMEOUT = 120_000;

const require = createRequire(import.meta.url);
const { Peer, ErrorCode } = require("../../pkg/node/wiggum_rpc.cjs");
const { webSocketTransport } = require("../../pkg/node/websocket.cjs");
require("../../pkg/node/trace.cjs");

const LEASE = 1000;
const GRACE = 20_000;
/** Quick redials, as a page's would be after a dropped connection. */
const RECONNECT = { initialDelay: 20, maxDelay: 200, jitter: 0 };

/** A client through the proxy, with its session, what it was pushed, and the hellos it sent. */
async function sessionClient(proxy) {
  const pushes = [];
  const hellos = [];
  const transport = webSocketTransport(`ws://127.0.0.1:${proxy.port}/`, { WebSocket, reconnect: RECONNECT });
  const peer = new Peer(transport, {
    timeout: 15_000,
    trace: ({ direction, message }) => direction === "out" && message?.method === "$/ready" && hellos.push(message),
  });
  peer.onNotify("push", ({ seq }) => pushes.push(seq));
  // A call from the hub side that takes a while to answer (it may be in flight while the client moves).
  peer.method("echo", async ({ ms = 0, ...rest }) => {
    await sleep(ms);
    return rest;
  });
  const ended = [];
  peer.on("sessionend", () => ended.push(Date.now()));

  await within(new Promise((resolve) => (transport.connected ? resolve() : peer.on("open", resolve))), 10_000, "the client to connect");
  await until(() => peer.session !== undefined, "the session granted");
  const id = await peer.request("whoami");
  return { peer, transport, id, pushes, hellos, ended };
}

/** Cuts the client's connection and waits for it to open again (through wherever the proxy now points). */
async function moved(proxy, transport) {
  const away = new Promise((resolve) => transport.on("close", resolve));
  const back = new Promise((resolve) => away.then(() => transport.on("open", resolve)));
  proxy.cut();
  await within(away, 5000, "the connection to drop");
  return within(back, 10_000, "the client to reconnect");
}

/** Redis, three hub processes granting sessions, a proxy to the first, and the clients; all ended after. */
async function sessionCluster(run) {
  const redis = await startRedis();
  const nodes = [];
  const clients = [];
  let proxy;
  try {
    // A hub process more, joined (and ended with the others).
    const start = async (name) => {
      const node = await startNode(redis, LEASE, name, [String(GRACE)]);
      nodes.push(node);
      await node.order("joined");
      return node;
    };
    for (const name of ["node-a", "node-b", "node-c"]) await start(name);
    proxy = await startProxy(nodes[0].port);
    const join = async () => {
      const client = await sessionClient(proxy);
      clients.push(client);
      return client;
    };
    await run({ redis, nodes, proxy, join, start });
  } finally {
    await proxy?.close();
    await end(nodes, clients);
    await redis.stop();
  }
}

/** A client of `node` that speaks plain JSON-RPC on a raw socket (no hello, no session), answered once: its answer, and its close code. */
async function strangerOn(node) {
  const socket = new WebSocket(`ws://127.0.0.1:${node.port}/`);
  await within(once(socket, "open"), 5000, "the stranger to connect");
  const closed = once(socket, "close").then(([code]) => code);
  socket.send(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "whoami" }));
  const [data] = await within(once(socket, "message"), 5000, "the stranger's answer");
  return { answer: JSON.parse(String(data)), closed };
}

/** Two clients connected to each of `nodes`, in order. */
async function twoOnEach(nodes, proxy, join) {
  const clients = [];
  for (const node of [...nodes]) {
    proxy.moveTo(node);
    for (let n = 0; n < 2; n++) clients.push(await join());
  }
  return clients;
}

const inOrder = (list, count, from = 0) => list.length === count && list.every((seq, at) => seq === from + at);

test("a client moved to another process mid-session keeps its id: its call answered once, pushes made while away arrive in order, a third process's call to it answered there", { timeout: TEST_TIMEOUT }, async () => {
  await sessionCluster(async ({ nodes: [a, b, c], proxy, join }) => {
    const client = await join();
    const { peer, transport, id, pushes } = client;
    assert.match(id, /^node-a\//);
    await a.order("push", { client: id, count: 50 });
    await until(() => pushes.length === 50, "the first pushes");

    const slow = peer.request("slow", { ms: 800, tag: "moved" });
    const fromC = c.order("request", { client: id, method: "echo", params: { ms: 400, asked: "by c" }, timeout: 10_000 });
    await sleep(100);
    proxy.moveTo(b);
    const started = Date.now();
    const back = moved(proxy, transport);
    // Made while the client is away: kept by its session on node-a.
    await a.order("push", { client: id, count: 50, from: 50 });
    await back;
    const resumedIn = Date.now() - started;

    assert.deepEqual(await slow, { tag: "moved", node: "node-a" }, "answered by the process that ran it");
    assert.deepEqual(await fromC, { asked: "by c" }, "the answer reached the process that asked");
    await until(() => pushes.length >= 100, "the pushes made while away");
    assert.ok(inOrder(pushes, 100), `pushes in order, none lost, none twice: ${pushes.join()}`);
    assert.equal(await peer.request("whoami"), id, "the same client");
    assert.equal((await a.order("runs"))["slow moved"], 1, "the call ran once");
    // Pushes from the new process go through the process holding the session.
    await b.order("push", { client: id, count: 10, from: 100 });
    await until(() => pushes.length === 110, "pushes from node-b");
    assert.ok(inOrder(pushes, 110));
    assert.deepEqual(await c.order("clients"), [[id, "node-a"]], "one client, still held by node-a");
    console.log(`moved to node-b and resumed in ${resumedIn} ms`);
  });
});

test("a call resent after the client reconnected elsewhere runs once: ten calls, each cut right after it is sent, the client moved each time", { timeout: TEST_TIMEOUT }, async () => {
  await sessionCluster(async ({ nodes, proxy, join }) => {
    const { peer, transport, id } = await join();
    const answers = [];
    for (let n = 0; n < 10; n++) {
      const call = peer.request("count", { tag: n });
      proxy.moveTo(nodes[(n + 1) % 3]);
      await moved(proxy, transport);
      answers.push(await call);
    }
    assert.deepEqual(answers.map(({ tag, runs }) => [tag, runs]), Array.from({ length: 10 }, (_, n) => [n, 1]), "each answered once, after running once");
    const runs = await nodes[0].order("runs");
    for (let n = 0; n < 10; n++) assert.equal(runs[`count ${n}`], 1, `count ${n} ran once`);
    assert.equal(await peer.request("whoami"), id);
  });
});

test("two processes claiming one session at once: the newer connection wins and the older is closed", { timeout: TEST_TIMEOUT }, async () => {
  await sessionCluster(async ({ nodes: [a, b], proxy, join }) => {
    const client = await join();
    const { peer, transport, id, hellos } = client;
    await moved(proxy, transport);
    const presenting = hellos.at(-1);
    assert.equal(typeof presenting?.params?.session, "object", `a hello presenting the session: ${JSON.stringify(presenting)}`);
    // Another connection, to node-b, presents the same session: relayed to node-a, which takes it.
    const other = new WebSocket(`ws://127.0.0.1:${b.port}/`);
    await once(other, "open");
    const otherFrames = [];
    other.on("message", (data) => otherFrames.push(String(data)));
    const otherClosed = new Promise((resolve) => other.on("close", (code) => resolve(code)));
    const clientClosed = new Promise((resolve) => transport.on("close", resolve));
    other.send(JSON.stringify(presenting));
    const { code } = await within(clientClosed, 5000, "the older connection closed");
    assert.equal(code, 4000, "closed as a session resumed on another connection");
    await until(() => otherFrames.length > 0, "node-a's answer to the newer connection");
    assert.equal(JSON.parse(otherFrames[0]).method, "$/ready");
    // The client redials (through the proxy, to node-a): newer again, it takes its session back.
    assert.equal(await within(otherClosed, 10_000, "the stranger's connection closed in turn"), 4000);
    assert.equal(await peer.request("whoami"), id);
    assert.equal(client.ended.length, 0, "the session never ended");
  });
});

test("the process holding a session killed while its client is away: the session ends explicitly (sessionend, its call failed CONNECTION_CLOSED), and the client gets a new one elsewhere", { timeout: TEST_TIMEOUT }, async () => {
  await sessionCluster(async ({ nodes: [a, b], proxy, join }) => {
    const { peer, transport, id, ended } = await join();
    const slow = peer.request("slow", { ms: 5000, tag: "dies" }).then(() => "answered", (error) => error.code);
    await sleep(100);
    proxy.moveTo(b);
    await moved(proxy, transport);
    const started = Date.now();
    a.kill();
    assert.equal(await within(slow, LEASE * 4, "the call to fail"), ErrorCode.CONNECTION_CLOSED);
    await until(() => ended.length === 1, "sessionend", LEASE * 4);
    const noticed = ended[0] - started;
    await until(() => peer.session !== undefined, "a new session");
    const now = await peer.request("whoami");
    assert.notEqual(now, id);
    assert.match(now, /^node-b\//, "a client of node-b now");
    console.log(`the session ended ${noticed} ms after its process was killed (lease ${LEASE} ms)`);
    assert.ok(noticed < LEASE * 3.5, `within about the lease (${noticed} ms)`);
  });
});

test("Redis restarted while a client is relayed: the client redials until it can be relayed again, then resumes its session with what it missed", { timeout: TEST_TIMEOUT }, async () => {
  await sessionCluster(async ({ redis, nodes: [a, b], proxy, join }) => {
    const { peer, transport, id, pushes, ended } = await join();
    proxy.moveTo(b);
    await moved(proxy, transport);
    assert.equal(await peer.request("whoami"), id, "relayed to node-a");
    const away = new Promise((resolve) => transport.on("close", resolve));
    await redis.stop();
    await within(away, 5000, "the relay to end with Redis");
    // node-a pushes while the client cannot reach it: kept in the session.
    await a.order("push", { client: id, count: 20 });
    const restarted = await startRedis(redis.port);
    try {
      await a.order("joined");
      await until(async () => (await peer.request("whoami", undefined, { timeout: 500 }).catch(() => undefined)) === id, "the session resumed through node-b", 20_000);
      await until(() => pushes.length === 20, "the pushes made while away");
      assert.ok(inOrder(pushes, 20), pushes.join());
      assert.equal(ended.length, 0, "the session never ended");
    } finally {
      await restarted.stop();
    }
  });
});

test("a rolling restart of every process: each client ends up served, sessions of a stopped process end explicitly, the pending maps drain, every key has an expiry, and none is left after", { timeout: TEST_TIMEOUT }, async () => {
  await sessionCluster(async ({ redis, nodes, proxy, join, start }) => {
    const clients = await twoOnEach(nodes, proxy, join);
    const everyKeyExpires = async (when) => {
      const keys = await keysOf(redis);
      assert.ok(Object.keys(keys).length > 0, `keys ${when}`);
      for (const [key, ttl] of Object.entries(keys)) assert.ok(ttl > 0, `${key} has an expiry ${when} (${ttl})`);
    };
    await everyKeyExpires("at the start");
    for (let round = 0; round < 3; round++) {
      const old = nodes[0];
      // The next process starts, the load balancer stops sending to the old one, which leaves.
      const next = await start(`${old.name}${round + 2}`);
      proxy.moveTo(next);
      assert.ok((await sessionHolders(redis)).includes(old.name), `${old.name} holds sessions`);
      await old.order("destroy");
      // The sessions it held ended with it: their keys are deleted, not left to expire.
      assert.deepEqual((await sessionHolders(redis)).filter((node) => node === old.name), [], `no session key names ${old.name} once it is destroyed`);
      old.kill();
      nodes.splice(nodes.indexOf(old), 1);
      // Every client is served again (its session ended if the old process held it).
      for (const client of clients) {
        await until(async () => (await client.peer.request("whoami", undefined, { timeout: 1000 }).catch(() => undefined)) !== undefined, "a client served again", 15_000);
      }
      await everyKeyExpires(`after round ${round + 1}`);
    }
    const ended = clients.reduce((sum, client) => sum + client.ended.length, 0);
    console.log(`after the rolling restart: ${ended} session ends told to 6 clients`);
    // Each process stopped held two sessions, and their clients then went to the new one.
    assert.deepEqual(clients.map((client) => client.ended.length), [1, 1, 1, 1, 1, 1], "each session of a stopped process ended explicitly, once");
    const ids = await Promise.all(clients.map((client) => client.peer.request("whoami")));
    assert.equal(new Set(ids).size, 6, "six clients, each once");
    assert.ok(ids.every((id) => nodes.some((node) => id.startsWith(`${node.name}/`))), `each a client of a running process: ${ids.join(" ")}`);
    for (const node of nodes) {
      await until(async () => JSON.stringify(await node.order("pending")) === JSON.stringify({ calls: 0, serving: 0, relays: 0 }), `${node.name}'s pending maps to drain`);
    }
    // The last processes die without leaving (SIGKILL): their keys expire all the same.
    for (const client of clients) client.peer.destroy();
    for (const node of nodes) node.kill();
    const killed = Date.now();
    await until(async () => Object.keys(await keysOf(redis)).length === 0, "every key to expire", LEASE * 5);
    console.log(`every key gone ${Date.now() - killed} ms after the last processes were killed`);
  });
});

test("a rolling restart that hands sessions over, relayed ones too: no session ends, each client keeps its id, a call in flight is answered once, pushes and notifications to all (from a process that stays, from the one leaving and from the one taking over) arrive in order, once", { timeout: TEST_TIMEOUT }, async () => {
  await sessionCluster(async ({ redis, nodes, proxy, join, start }) => {
    const clients = await twoOnEach(nodes, proxy, join);
    // Every connection moved to node-b: the sessions of node-a's and node-c's clients are relayed there.
    proxy.moveTo(nodes[1]);
    proxy.cut();
    for (const { peer, id } of clients) {
      await until(async () => (await peer.request("whoami", undefined, { timeout: 1000 }).catch(() => undefined)) === id, "each client relayed to its session");
    }
    // What each client heard from each sender, by method ("all" from a process that stays, "mine" from the one leaving).
    const heard = clients.map(() => ({}));
    for (const [at, { peer }] of clients.entries()) {
      for (const method of ["all", "mine", "taker"]) peer.onNotify(method, ({ from, seq }) => (heard[at][`${method} ${from}`] ??= []).push(seq));
    }
    const expected = {};
    for (let round = 0; round < 3; round++) {
      const old = nodes[0];
      const next = await start(`${old.name}${round + 2}`);
      proxy.moveTo(next);
      const theirs = clients.filter((client) => (client.holder ?? client.id.slice(0, client.id.indexOf("/"))) === old.name);
      // In flight as the process leaves: a call of each of its clients, pushes it makes, notifications to all from it and from one that stays.
      const calls = theirs.map((client) => client.peer.request("slow", { ms: 400, tag: `${client.id} ${round}` }));
      for (const client of theirs) await old.order("push", { client: client.id, count: 20, from: client.pushes.length });
      const staying = nodes.find((node) => node !== old && node !== next);
      const seenBefore = await Promise.all([staying, next].map(async (node) => (await node.order("events")).length));
      // A stranger on the leaving process: plain JSON-RPC on a raw socket, no session. It is closed (1012), and not waited for.
      const stranger = round === 0 ? await strangerOn(old) : undefined;
      // And from the process taking the sessions over, through the moment each client arrives there.
      const notifying = Promise.all([
        staying.order("notifyAll", { method: "all", count: 200, every: 2 }),
        old.order("notifyAll", { method: "mine", count: 100, every: 5 }),
        next.order("notifyAll", { method: "taker", count: 100, every: 5 }),
      ]);
      expected[`all ${staying.name}`] = 200;
      expected[`mine ${old.name}`] = 100;
      expected[`taker ${next.name}`] = 100;
      const started = Date.now();
      const result = await old.order("handOff", { wait: 10_000 });
      console.log(`round ${round + 1}: ${JSON.stringify(result)} in ${Date.now() - started} ms`);
      assert.deepEqual(result, { handed: theirs.length, kept: 0 }, "every session of the leaving process handed over");
      if (stranger !== undefined) {
        assert.equal(typeof stranger.answer.result, "string", "the stranger was served");
        assert.equal(await within(stranger.closed, 5000, "the stranger's socket to close"), 1012);
        // Until it exits, the leaving process turns new sockets away the same way.
        const late = new WebSocket(`ws://127.0.0.1:${old.port}/`);
        const [code] = await within(once(late, "close"), 5000, "a new socket to be turned away");
        assert.equal(code, 1012);
      }
      const answers = await within(Promise.all(calls), 10_000, "the calls in flight");
      assert.deepEqual(answers.map((answer) => answer.node), theirs.map(() => old.name), "each call answered by the process that ran it");
      assert.deepEqual(Object.values(await old.order("runs")).filter((count) => count !== 1), [], "each ran once");
      await notifying;
      await old.order("destroy");
      old.kill();
      nodes.splice(nodes.indexOf(old), 1);
      for (const client of theirs) client.holder = next.name;
      // The processes that stay saw the leaving one go, and none of the moved clients come or go (the taker neither).
      for (const [at, node] of [staying, next].entries()) {
        await until(async () => (await node.order("clients")).every(([, home]) => home !== old.name), `${node.name} to see ${old.name} gone`);
        const seen = (await node.order("events")).slice(seenBefore[at]).filter(({ id }) => clients.some((client) => client.id === id));
        assert.deepEqual(seen, [], `${node.name} heard nothing of the moves`);
      }
      // As a deploy waits for health before the next step: every client served again (relayed ones redial too).
      for (const { peer, id } of clients) {
        await until(async () => (await peer.request("whoami", undefined, { timeout: 1000 }).catch(() => undefined)) === id, "each client served again");
      }
    }
    for (const [at, client] of clients.entries()) {
      const counts = () => Object.fromEntries(Object.entries(heard[at]).map(([key, seqs]) => [key, seqs.length]));
      await until(() => JSON.stringify(counts()) === JSON.stringify({ ...counts(), ...expected }), `client ${at}'s notifications (${JSON.stringify(counts())})`);
      assert.deepEqual(Object.keys(heard[at]).sort(), Object.keys(expected).sort());
      for (const [key, seqs] of Object.entries(heard[at])) assert.ok(inOrder(seqs, expected[key]), `client ${at}, ${key}: each once, in order`);
      assert.ok(inOrder(client.pushes, 20), `client ${at}: pushes in order, once`);
      assert.equal(await client.peer.request("whoami"), client.id, "the client kept its id");
    }
    assert.deepEqual(clients.map((client) => client.ended.length), [0, 0, 0, 0, 0, 0], "no session ended");
    for (const node of nodes) {
      await until(async () => JSON.stringify(await node.order("pending")) === JSON.stringify({ calls: 0, serving: 0, relays: 0 }), `${node.name}'s pending maps to drain`);
    }
    const keys = await keysOf(redis);
    for (const [key, ttl] of Object.entries(keys)) assert.ok(ttl > 0, `${key} has an expiry (${ttl})`);
  });
});

test("a session whose handler outlasts the hand-over's wait is relayed to the leaving process instead: what its client sent meanwhile is answered there, and the session ends explicitly with the process", { timeout: TEST_TIMEOUT }, async () => {
  await sessionCluster(async ({ nodes: [a, b], proxy, join }) => {
    const { peer, transport, id, ended } = await join();
    const slow = peer.request("slow", { ms: 1500, tag: "outlasting" });
    await until(async () => (await a.order("runs"))["slow outlasting"] === 1, "the call to run");
    proxy.moveTo(b);
    const back = new Promise((resolve) => transport.on("reconnected", resolve));
    const leaving = a.order("handOff", { wait: 600 });
    await within(back, 5000, "the client to redial");
    // Sent while node-a decides: held there, then delivered on the relay.
    const meanwhile = peer.request("count", { tag: "meanwhile" });
    assert.deepEqual(await leaving, { handed: 0, kept: 1 }, "the session stayed");
    assert.deepEqual(await meanwhile, { tag: "meanwhile", runs: 1, node: "node-a" }, "answered by node-a, through the relay");
    assert.deepEqual(await slow, { tag: "outlasting", node: "node-a" });
    assert.equal(await peer.request("whoami"), id);
    assert.equal(ended.length, 0);
    await a.order("destroy");
    a.kill();
    await until(() => ended.length === 1, "the session to end with its process");
    assert.match(await peer.request("whoami"), /^node-b\//, "a new session on node-b");
  });
});

test("notifications to all from two processes at once, 1,000 each, with clients cut and moved in the middle: every client gets each sender's in order, none lost, none twice", { timeout: TEST_TIMEOUT }, async () => {
  await sessionCluster(async ({ nodes: [a, b, c], proxy, join }) => {
    const clients = [];
    for (const node of [a, b, c]) {
      proxy.moveTo(node);
      clients.push(await join(), await join());
    }
    const heard = clients.map(() => ({ "node-a": [], "node-b": [] }));
    clients.forEach((client, at) => client.peer.onNotify("all", ({ from, seq }) => heard[at][from].push(seq)));
    const sending = Promise.all([a.order("notifyAll", { method: "all", count: 1000 }), b.order("notifyAll", { method: "all", count: 1000 })]);
    // In the middle: every connection cut, each client redialling to node-c.
    await until(() => heard.some((one) => one["node-a"].length > 200), "the first notifications");
    proxy.moveTo(c);
    proxy.cut();
    await sending;
    for (const [at, one] of heard.entries()) {
      await until(() => one["node-a"].length >= 1000 && one["node-b"].length >= 1000, `client ${at}'s notifications (${one["node-a"].length}, ${one["node-b"].length}; sessions ended ${clients[at].ended.length}; connected ${clients[at].transport.connected}; session ${clients[at].peer.session})`, 20_000);
      for (const from of ["node-a", "node-b"]) assert.ok(inOrder(one[from], 1000), `client ${at} from ${from}: in order, once each`);
    }
    for (const client of clients) assert.equal(client.ended.length, 0, "no session ended");
  });
});
