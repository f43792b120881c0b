// Resumable sessions over real WebSockets on 127.0.0.1: a hub attached to a
// `ws` server, and clients of the package's WebSocket transport that
// reconnect. The socket is killed under a call in flight, under a stream, and
// during the reconnect itself; the server restarts; a session outlives its
// grace; a client presents someone else's session; a stranger connects;
// then a page in headless Chromium whose socket is killed under a build.
// What a session carries arrives once; what it cannot carry fails with
// CONNECTION_CLOSED; nothing hangs.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { WebSocket, WebSocketServer } from "ws";
import { openLibPage } from "./browser.mjs";

const require = createRequire(import.meta.url);
const { Peer, ErrorCode } = require("../../pkg/node/wiggum_rpc.cjs");
const { webSocketTransport } = require("../../pkg/node/websocket.cjs");
const { Hub } = require("../../pkg/node/hub.cjs");
require("../../pkg/node/stream.cjs");

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
/** Quick redials: the schedule of seed 003, scaled down. */
const RECONNECT = { initialDelay: 20, maxDelay: 100, jitter: 0 };

let wss;
let url;
let port;

async function listen(at = 0) {
  const server = new WebSocketServer({ host: "127.0.0.1", port: at });
  await new Promise((resolve, reject) => server.once("listening", resolve).once("error", reject));
  return server;
}

async function close(server) {
  for (const socket of server.clients) socket.terminate();
  await new Promise((resolve) => server.close(resolve));
}

before(async () => {
  wss = await listen();
  port = wss.address().port;
  url = `ws://127.0.0.1:${port}/`;
});

after(() => close(wss));

/** A client that reconnects, with its session granted. */
async function client(options) {
  const transport = webSocketTransport(url, { WebSocket, reconnect: RECONNECT, ...options });
  const peer = new Peer(transport, { timeout: 10_000 });
  await until(() => peer.session !== undefined, "the session granted");
  return { peer, transport };
}

/** Kills the server's end of every socket: the clients see 1006, as on a dropped link. */
function killSockets(server = wss) {
  for (const socket of server.clients) socket.terminate();
}

/** Kills the sockets and waits until the client's transport has seen its connection close. */
async function killAndWait(transport) {
  const away = new Promise((resolve) => transport.on("close", resolve));
  killSockets();
  await away;
}

async function until(condition, what, ms = 5000) {
  for (let waited = 0; !(await condition()); waited += 5) {
    if (waited > ms) assert.fail(`timed out waiting for ${what}`);
    await sleep(5);
  }
}

test("a build in flight while the socket is killed and comes back: answered once, same client", async () => {
  const hub = new Hub().attach(wss);
  let runs = 0;
  hub.method("build", async () => {
    runs += 1;
    await sleep(300);
    return "built";
  });
  const connections = [];
  hub.on("connection", (id) => connections.push(id));
  const { peer, transport } = await client();
  try {
    const session = peer.session;
    const reconnects = [];
    transport.on("reconnected", (detail) => reconnects.push(detail));
    const started = performance.now();
    const build = peer.request("build");
    await sleep(50);
    killSockets();
    const result = await build;
    const took = performance.now() - started;
    assert.equal(result, "built");
    assert.equal(runs, 1, "the build ran once");
    assert.equal(reconnects.length, 1, "one reconnect");
    assert.equal(peer.session, session, "the same session");
    assert.deepEqual(hub.clients, connections, "the same hub client: no second connection");
    console.log(`# build answered once across a killed socket in ${took.toFixed(0)} ms (the build takes 300)`);
  } finally {
    peer.destroy();
    hub.destroy();
  }
});

test("notifications to a client that is away are delivered when it is back, in order, and hub.notify says it is there", async () => {
  const hub = new Hub().attach(wss);
  const { peer, transport } = await client();
  const heard = [];
  peer.onNotify("tick", ({ n }) => heard.push(n));
  try {
    await until(() => hub.clients.length === 1, "the client");
    const [id] = hub.clients;
    hub.notify(id, "tick", { n: 0 });
    await until(() => heard.length === 1, "the first tick");
    await killAndWait(transport);
    for (let n = 1; n <= 50; n++) assert.equal(hub.notify(id, "tick", { n }), true, "still a client");
    await until(() => heard.length === 51, "every tick");
    assert.deepEqual(heard, Array.from({ length: 51 }, (_, n) => n), "each once, in order");
  } finally {
    peer.destroy();
    hub.destroy();
  }
});

test("killed again and again, during calls and during the reconnect itself: every call answered once", async () => {
  const hub = new Hub().attach(wss);
  const ran = new Map();
  hub.method("echo", async ({ n }) => {
    ran.set(n, (ran.get(n) ?? 0) + 1);
    await sleep(n % 7);
    return n;
  });
  const { peer, transport } = await client();
  try {
    let kills = 0;
    transport.on("open", () => {
      // Half of the new connections die before their hello is answered.
      if (kills++ % 2 === 0) setTimeout(() => killSockets(), 0);
    });
    const calls = [];
    for (let n = 0; n < 300; n++) {
      calls.push(peer.request("echo", { n }));
      if (n % 30 === 0) killSockets();
      await sleep(1);
    }
    const results = await Promise.all(calls);
    assert.deepEqual(results, Array.from({ length: 300 }, (_, n) => n));
    assert.equal(ran.size, 300);
    assert.ok([...ran.values()].every((count) => count === 1), "no call ran twice");
    assert.ok(kills >= 10, `the socket died ${kills} times`);
  } finally {
    peer.destroy();
    hub.destroy();
  }
});

test("a stream cut halfway goes on where it was: each chunk once, in order", async () => {
  const hub = new Hub().attach(wss);
  hub.method("count", async ([to], { emit }) => {
    for (let n = 0; n < to; n++) {
      await emit(n);
      await sleep(2);
    }
    return "end";
  });
  const { peer } = await client();
  try {
    const chunks = [];
    let killed = false;
    for await (const chunk of peer.stream("count", [100])) {
      chunks.push(chunk);
      if (chunks.length === 20 && !killed) {
        killed = true;
        killSockets();
      }
    }
    assert.ok(killed);
    assert.deepEqual(chunks, Array.from({ length: 100 }, (_, n) => n));
  } finally {
    peer.destroy();
    hub.destroy();
  }
});

test("a restarted server: calls that had gone fail with CONNECTION_CLOSED; what never left goes; new calls work", async () => {
  const first = new Hub().attach(wss);
  first.method("slow", () => sleep(3_000).then(() => "never"));
  const { peer, transport } = await client();
  try {
    const lost = peer.request("slow").then(() => "resolved", (error) => error.code);
    await sleep(50);
    const before = peer.session;
    // The server goes, and a new one comes up with no sessions.
    first.destroy();
    await killAndWait(transport);
    const second = new Hub().attach(wss);
    second.method("slow", () => "now");
    const held = peer.request("slow");
    assert.equal(await lost, ErrorCode.CONNECTION_CLOSED, "the call that had gone cannot be recovered");
    assert.equal(await held, "now", "the call made while away goes to the new server");
    assert.notEqual(peer.session, before, "a new session");
    assert.equal(await peer.request("slow"), "now");
    second.destroy();
  } finally {
    peer.destroy();
    first.destroy();
  }
});

test("a session past its grace is gone: the client's calls fail, the hub's client is dropped", async () => {
  const hub = new Hub().attach(wss, { sessions: { grace: 200 } });
  hub.method("slow", () => sleep(3_000));
  const gone = [];
  hub.on("disconnection", (id) => gone.push(id));
  // Redials only after the grace.
  const { peer, transport } = await client({ reconnect: { initialDelay: 600, jitter: 0 } });
  try {
    await until(() => hub.clients.length === 1, "the client");
    const [id] = hub.clients;
    const lost = peer.request("slow").then(() => "resolved", (error) => error.code);
    await sleep(20);
    const ended = new Promise((resolve) => transport.on("sessionend", resolve));
    killSockets();
    const started = performance.now();
    assert.equal(await lost, ErrorCode.CONNECTION_CLOSED);
    const waited = performance.now() - started;
    await ended;
    assert.ok(waited >= 150 && waited < 2000, `failed at the grace's end (${waited.toFixed(0)} ms)`);
    await until(() => gone.includes(id), "the hub dropped it");
    await until(() => peer.session !== undefined, "a new session after the reconnect");
    assert.equal(hub.clients.length, 1);
    assert.notEqual(hub.clients[0], id, "a new client");
  } finally {
    peer.destroy();
    hub.destroy();
  }
});

test("someone else's session id, or a made-up one, gives nothing of that session", async () => {
  const hub = new Hub().attach(wss);
  const { peer, transport } = await client({ reconnect: { initialDelay: 1000, jitter: 0 } });
  const heard = [];
  peer.onNotify("private", (params) => heard.push(params.secret));
  try {
    await until(() => hub.clients.length === 1, "the client");
    const [id] = hub.clients;
    await killAndWait(transport);
    hub.notify(id, "private", { secret: 42 });
    for (const presented of [id, "made-up", "x".repeat(10_000)]) {
      const socket = new WebSocket(url);
      const received = [];
      socket.on("message", (data) => received.push(JSON.parse(String(data))));
      await new Promise((resolve) => socket.once("open", resolve));
      socket.send(JSON.stringify({ jsonrpc: "2.0", method: "$/ready", params: { ack: false, session: { id: presented, received: 0 } } }));
      await until(() => received.length >= 1, "the answer");
      await sleep(50);
      assert.equal(received.length, 1, `only the answer to ${presented.slice(0, 20)}`);
      assert.equal(received[0].params.session.resumed, false);
      assert.notEqual(received[0].params.session.id, peer.session);
      assert.ok(!JSON.stringify(received).includes("secret"));
      socket.close();
    }
    // The owner comes back and gets what it missed.
    await until(() => heard.length === 1, "the owner's notification");
    assert.deepEqual(heard, [42]);
  } finally {
    peer.destroy();
    hub.destroy();
  }
});

test("toward strangers nothing changes: a client that asks nothing, a silent one, a server that keeps no sessions", async () => {
  // A plain wiggum client (no reconnect): no hello, no session, calls fail when its socket dies.
  const hub = new Hub().attach(wss);
  hub.method("slow", () => sleep(3_000));
  hub.method("ping", () => "pong");
  try {
    const transport = webSocketTransport(url, { WebSocket });
    const plain = new Peer(transport);
    assert.equal(await plain.request("ping"), "pong");
    assert.equal(plain.session, undefined);
    const lost = plain.request("slow").then(() => "resolved", (error) => error.code);
    await sleep(20);
    killSockets();
    assert.equal(await lost, ErrorCode.CONNECTION_CLOSED);
    plain.destroy();
    // A raw socket that says nothing is still a client, announced after a short wait.
    const connected = new Promise((resolve) => hub.on("connection", resolve));
    const silent = new WebSocket(url);
    const started = performance.now();
    const id = await connected;
    assert.ok(performance.now() - started < 2000);
    const answered = new Promise((resolve) => silent.on("message", (data) => resolve(JSON.parse(String(data)))));
    assert.equal(hub.notify(id, "hello", {}), true);
    assert.deepEqual(await answered, { jsonrpc: "2.0", method: "hello", params: {} });
    silent.close();
  } finally {
    hub.destroy();
  }
  // A server that keeps no sessions (a Peer per socket): the client's calls fail as they always did.
  const bare = await listen();
  bare.on("connection", (socket) => new Peer(webSocketTransport(socket)).method("slow", () => sleep(3_000)));
  const transport = webSocketTransport(`ws://127.0.0.1:${bare.address().port}/`, { WebSocket, reconnect: RECONNECT });
  const peer = new Peer(transport);
  try {
    const lost = peer.request("slow").then(() => "resolved", (error) => error.code);
    await sleep(50);
    assert.equal(peer.session, undefined, "no session granted");
    killSockets(bare);
    assert.equal(await lost, ErrorCode.CONNECTION_CLOSED);
  } finally {
    peer.destroy();
    await close(bare);
  }
});

test("what a session keeps is bounded: past maxKept it ends, and the hub forgets it", async () => {
  const hub = new Hub().attach(wss, { sessions: { maxKept: 20 } });
  const { peer, transport } = await client({ reconnect: { initialDelay: 300, jitter: 0 } });
  const gone = [];
  hub.on("disconnection", (id) => gone.push(id));
  try {
    await until(() => hub.clients.length === 1, "the client");
    const [id] = hub.clients;
    await killAndWait(transport);
    for (let n = 0; n < 50; n++) hub.notify(id, "flood", { n });
    await until(() => gone.includes(id), "the session ended at its bound");
  } finally {
    peer.destroy();
    hub.destroy();
  }
});

test("Chromium: a page's build in flight while its socket is killed and comes back: answered once", { timeout: 60_000 }, async () => {
  const browser = await openLibPage();
  const hub = new Hub().attach(wss, { origins: [new URL(browser.page.url()).origin] });
  let runs = 0;
  hub.method("build", async () => {
    runs += 1;
    await sleep(400);
    return { ok: true, files: 3 };
  });
  try {
    await browser.page.evaluate(async (url) => {
      const { Peer, webSocketTransport } = window.lib;
      window.transport = webSocketTransport(url, { reconnect: { initialDelay: 20, jitter: 0 } });
      window.peer = new Peer(window.transport);
      window.events = [];
      for (const event of ["close", "reconnected", "sessionend"]) window.transport.on(event, () => window.events.push(event));
      while (window.peer.session === undefined) await new Promise((resolve) => setTimeout(resolve, 5));
      window.started = performance.now();
      window.build = window.peer.request("build").then((result) => ({ result, took: performance.now() - window.started }));
    }, url);
    await until(() => runs === 1, "the build started");
    killSockets();
    const { result, took } = await browser.page.evaluate(() => window.build);
    assert.deepEqual(result, { ok: true, files: 3 });
    assert.equal(runs, 1, "the build ran once");
    assert.deepEqual(await browser.page.evaluate(() => window.events), ["close", "reconnected"]);
    assert.equal(hub.clients.length, 1, "one client throughout");
    console.log(`# Chromium: build answered once across a killed socket in ${took.toFixed(0)} ms (the build takes 400)`);
  } finally {
    await browser.close();
    hub.destroy();
  }
});

test("sessions waiting for their clients are bounded in total: past `max`, the oldest ends", async () => {
  const hub = new Hub().attach(wss, { sessions: { max: 2 } });
  const gone = [];
  hub.on("disconnection", (id) => gone.push(id));
  const clients = [];
  try {
    for (let n = 0; n < 3; n++) clients.push(await client({ reconnect: { initialDelay: 5000, jitter: 0 } }));
    await until(() => hub.clients.length === 3, "three clients");
    const ids = hub.clients;
    for (const socket of [...wss.clients]) {
      socket.terminate();
      await sleep(30);
    }
    await until(() => gone.length === 1, "one session dropped");
    assert.equal(gone.length, 1);
    assert.equal(hub.clients.length, 2, "two wait for their clients");
    assert.ok(ids.includes(gone[0]));
  } finally {
    for (const { peer } of clients) peer.destroy();
    hub.destroy();
  }
});
