// WebSocket transport and streaming, end to end over real sockets: headless
// Chromium with the web build (pkg-web, with `websocket.js`) talking to Peers of
// the npm package's Node build that wrap the connections of a `ws` WebSocketServer.
// Covers calls both ways, notifications, remote()/expose(), sending before
// open, pending calls failing fast on close, reconnecting with backoff and an
// app-level re-sync, timeouts, garbage and binary frames, streamed chunks with
// cancellation, and Node ↔ Node over `ws` sockets.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { once } from "node:events";
import { createRequire } from "node:module";
import { setTimeout as sleep } from "node:timers/promises";
import { WebSocket, WebSocketServer } from "ws";
import { openLibPage } from "./browser.mjs";

const require = createRequire(import.meta.url);
// The npm package's Node build: the root entry, `wiggum-rpc/websocket`, and
// `wiggum-rpc/remote` and `wiggum-rpc/stream` (which add their methods).
const lib = { ...require("../../pkg/node/wiggum_rpc.cjs"), ...require("../../pkg/node/websocket.cjs") };
require("../../pkg/node/remote.cjs");
require("../../pkg/node/stream.cjs");

const servers = new Set();
let opened;
let page;
let shared;
const pageErrors = [];

/** Resolves with the truthy value of `predicate` (may be async), or fails after `ms`. */
async function waitFor(predicate, ms = 5000, what = "a condition") {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await predicate();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await sleep(20);
  }
}

async function listen(port = 0) {
  const wss = new WebSocketServer({ host: "127.0.0.1", port });
  servers.add(wss);
  await once(wss, "listening");
  return wss;
}

// Stops a server the hard way: clients are cut off without a closing
// handshake, as when a process dies or the network drops.
async function shut(wss) {
  servers.delete(wss);
  for (const client of wss.clients) client.terminate();
  await new Promise((resolve) => wss.close(() => resolve()));
}

const urlOf = (wss, name) => `ws://127.0.0.1:${wss.address().port}/?name=${name}`;
const nameOf = (request) => new URL(request.url, "http://localhost").searchParams.get("name");

// State of the shared server's handlers, kept apart per test by method prefix.
const connections = new Map();
const notes = [];
const t3notes = [];
const held = new Set();
const t8order = [];
const ticker = { emitted: 0, aborted: false, finished: false };

class Repo {
  constructor() {
    this.files = { src: ["lib.rs", "wasm/"], tests: ["js/", "wasm.rs"] };
  }

  get_file_tree(dir) {
    return { root: dir, entries: this.files[dir] ?? [] };
  }
}
const repo = new Repo();

function serve(peer) {
  peer.method("t1.add", ([a, b]) => a + b);
  peer.method("t1.greet", ({ name, punctuation }) => `hello, ${name}${punctuation}`);
  peer.onNotify("t1.note", (params) => notes.push(params));
  peer.expose(repo, "Repo");
  peer.method("t1.fail", () => {
    throw new Error("disk on fire");
  });
  peer.method("t2.upper", ([text]) => text.toUpperCase());
  peer.onNotify("t3.note", (params) => t3notes.push(params));
  peer.method("t3.echo", ([text]) => ({ echoed: text, notesBefore: t3notes.length }));
  peer.method("t4.hold", ([who]) => {
    held.add(who);
    return new Promise(() => {});
  });
  peer.method("t6.slow", () => sleep(1000).then(() => "too late"));
  peer.method("t6.never", () => new Promise(() => {}));
  peer.method("t8.count", async ([label, n], { emit }) => {
    for (let i = 0; i < n; i++) {
      t8order.push(label);
      emit({ label, i });
      await sleep(5);
    }
    return { label, total: n };
  });
  peer.method("t8.ticker", async (params, { signal, emit }) => {
    signal.addEventListener("abort", () => {
      ticker.aborted = true;
    });
    try {
      // Bounded, so a signal that never fires shows up as a growing counter, not a hang.
      while (!signal.aborted && ticker.emitted < 500) {
        ticker.emitted++;
        emit(ticker.emitted - 1);
        await sleep(20);
      }
      return "stopped";
    } finally {
      ticker.finished = true;
    }
  });
}

/** The shared server's side of the browser or Node connection opened with `?name=`. */
const connection = (name) => waitFor(() => connections.get(name), 5000, `the connection "${name}"`);

before(async () => {
  shared = await listen();
  shared.on("connection", (socket, request) => {
    const peer = new lib.Peer(lib.webSocketTransport(socket), { timeout: 5000 });
    serve(peer);
    connections.set(nameOf(request), { socket, peer });
    // Its pending calls and timers go with the connection, so the process can exit.
    socket.on("close", () => peer.destroy());
  });
  opened = await openLibPage({ pageErrors });
  page = opened.page;
  await page.evaluate(() => {
    // RPCErrors do not survive page.evaluate: reduce outcomes to plain data.
    window.settle = (promise) => promise.then(
      (value) => ({ ok: true, value }),
      (error) => ({ ok: false, code: error?.code, message: error?.message, data: error?.data, rpc: error instanceof lib.RPCError }),
    );
    window.sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
  });
});

after(async () => {
  await opened?.close();
  for (const wss of [...servers]) await shut(wss);
});

test("browser → server: positional and named params, a notification, remote(), errors", { timeout: 20_000 }, async () => {
  const mark = pageErrors.length;
  const result = await page.evaluate(async (url) => {
    const peer = new lib.Peer(lib.webSocketTransport(url), { timeout: 5000 });
    try {
      const sum = await peer.request("t1.add", [2, 3]);
      const greeting = await peer.request("t1.greet", { name: "Ada", punctuation: "!" });
      peer.notify("t1.note", { text: "saved", at: 3 });
      const tree = await peer.remote().Repo.get_file_tree("src");
      const failure = await settle(peer.request("t1.fail"));
      const missing = await settle(peer.request("t1.nope", [1]));
      return { sum, greeting, tree, failure, missing, pending: peer.pending };
    } finally {
      peer.destroy();
    }
  }, urlOf(shared, "t1"));
  assert.equal(result.sum, 5);
  assert.equal(result.greeting, "hello, Ada!");
  assert.deepEqual(result.tree, { root: "src", entries: ["lib.rs", "wasm/"] });
  assert.equal(result.failure.ok, false);
  assert.equal(result.failure.rpc, true, "rejects with an RPCError");
  assert.equal(result.failure.code, lib.ErrorCode.INTERNAL_ERROR);
  assert.equal(result.failure.message, "disk on fire");
  assert.equal(result.missing.code, lib.ErrorCode.METHOD_NOT_FOUND);
  assert.equal(result.pending, 0);
  await waitFor(() => notes.length === 1, 2000, "the notification");
  assert.deepEqual(notes, [{ text: "saved", at: 3 }]);
  assert.deepEqual(pageErrors.slice(mark), [], "nothing threw in the page");
});

test("a browser WebSocket the app made is wrapped, and redialled at its own URL", { timeout: 20_000 }, async () => {
  const mark = pageErrors.length;
  await page.evaluate((url) => {
    const socket = new WebSocket(url);
    const peer = new lib.Peer(lib.webSocketTransport(socket, { reconnect: { initialDelay: 50, jitter: 0 } }), { timeout: 5000 });
    const t10 = (window.t10 = { peer, reconnected: 0 });
    peer.on("reconnected", () => t10.reconnected++);
  }, urlOf(shared, "t10"));
  try {
    assert.equal(await page.evaluate(() => window.t10.peer.request("t1.add", [1, 2])), 3);
    const first = await connection("t10");
    connections.delete("t10");
    first.socket.terminate();
    await waitFor(() => page.evaluate(() => window.t10.reconnected === 1), 5000, "the reconnection");
    const second = await connection("t10");
    assert.notEqual(second.socket, first.socket, "a new connection, to the same URL (same ?name=)");
    assert.equal(await page.evaluate(() => window.t10.peer.request("t1.add", [20, 22])), 42);
  } finally {
    await page.evaluate(() => window.t10?.peer.destroy());
  }
  assert.deepEqual(pageErrors.slice(mark), [], "nothing threw in the page");
});

test("server → browser: calls to browser methods and notifications", { timeout: 20_000 }, async () => {
  const mark = pageErrors.length;
  await page.evaluate((url) => {
    const peer = new lib.Peer(lib.webSocketTransport(url), { timeout: 5000 });
    const t2 = (window.t2 = { peer, chunks: [], complete: undefined });
    peer.method("AcApp.multiply", ([a, b]) => a * b);
    peer.method("AcApp.describe", ({ key }) => ({ key, title: document.title }));
    // Calls back into the server while the server's call is in flight.
    peer.method("AcApp.relay", async ([text]) => `browser got ${await peer.request("t2.upper", [text])}`);
    peer.method("AcApp.refuse", () => {
      throw new lib.RPCError(-32003, "not allowed", { path: "/etc" });
    });
    peer.onNotify("AcApp.streamChunk", (params) => t2.chunks.push(params));
    peer.onNotify("AcApp.streamComplete", (params) => {
      t2.complete = params;
    });
  }, urlOf(shared, "t2"));
  const { peer: server } = await connection("t2");
  try {
    assert.equal(await server.request("AcApp.multiply", [6, 7]), 42);
    assert.deepEqual(await server.request("AcApp.describe", { key: "k1" }), { key: "k1", title: "test page" });
    assert.equal(await server.request("AcApp.relay", ["hello"]), "browser got HELLO");
    await assert.rejects(server.request("AcApp.refuse"), (error) => {
      assert.ok(error instanceof lib.RPCError);
      assert.equal(error.code, -32003);
      assert.equal(error.message, "not allowed");
      assert.deepEqual(error.data, { path: "/etc" });
      return true;
    });
    const pieces = ["Hel", "lo, ", "wor", "ld"];
    pieces.forEach((content, index) => server.notify("AcApp.streamChunk", { requestId: "r1", index, content }));
    server.notify("AcApp.streamComplete", { requestId: "r1", response: pieces.join("") });
    await waitFor(() => page.evaluate(() => window.t2.complete !== undefined), 5000, "streamComplete");
    const { chunks, complete } = await page.evaluate(() => ({ chunks: window.t2.chunks, complete: window.t2.complete }));
    assert.deepEqual(chunks, pieces.map((content, index) => ({ requestId: "r1", index, content })));
    assert.deepEqual(complete, { requestId: "r1", response: "Hello, world" });
  } finally {
    await page.evaluate(() => window.t2?.peer.destroy());
  }
  assert.deepEqual(pageErrors.slice(mark), [], "nothing threw in the page");
});

test("calls and notifications made before the socket opens are queued and sent on open", { timeout: 20_000 }, async () => {
  const mark = pageErrors.length;
  const result = await page.evaluate(async (url) => {
    const transport = lib.webSocketTransport(url);
    const peer = new lib.Peer(transport, { timeout: 5000 });
    try {
      const opens = [];
      peer.on("open", () => opens.push("peer"));
      transport.on("open", () => opens.push("transport"));
      const off = peer.on("open", () => opens.push("removed listener"));
      off();
      const beforeOpen = { connected: transport.connected };
      peer.notify("t3.note", { early: true });
      const answer = peer.request("t3.echo", ["sent before open"]);
      // The call waits for the end of the turn (it may be batched with
      // others), then for the socket.
      await Promise.resolve();
      await Promise.resolve();
      beforeOpen.queued = transport.queued;
      const value = await answer;
      await sleep(50);
      return { beforeOpen, value, opens: opens.sort(), afterOpen: { connected: transport.connected, queued: transport.queued } };
    } finally {
      peer.destroy();
    }
  }, urlOf(shared, "t3"));
  assert.deepEqual(result.beforeOpen, { connected: false, queued: 2 });
  assert.deepEqual(result.value, { echoed: "sent before open", notesBefore: 1 }, "the notification went first, in order");
  assert.deepEqual(result.opens, ["peer", "transport"], "`open` fired once per listener; off() removed its listener");
  assert.deepEqual(result.afterOpen, { connected: true, queued: 0 });
  assert.deepEqual(t3notes, [{ early: true }]);
  assert.deepEqual(pageErrors.slice(mark), [], "nothing threw in the page");
});

test("a dropped connection rejects pending calls at once with CONNECTION_CLOSED", { timeout: 20_000 }, async () => {
  const mark = pageErrors.length;
  assert.equal(lib.ErrorCode.CONNECTION_CLOSED, -32095);
  await page.evaluate((url) => {
    const transport = lib.webSocketTransport(url);
    const peer = new lib.Peer(transport, { timeout: 30_000 });
    const t4 = (window.t4 = { peer, transport, closes: [] });
    peer.on("close", ({ code, reason, wasClean }) => t4.closes.push({ code, reason, wasClean }));
    t4.call = settle(peer.request("t4.hold", ["t4"], { timeout: 30_000 }));
  }, urlOf(shared, "t4"));
  await waitFor(() => held.has("t4"), 5000, "the server to hold the call");
  const started = Date.now();
  connections.get("t4").socket.terminate();
  const outcome = await page.evaluate(() => window.t4.call);
  const elapsed = Date.now() - started;
  assert.equal(outcome.ok, false);
  assert.equal(outcome.code, -32095);
  assert.equal(outcome.message, "Connection closed");
  assert.ok(elapsed < 2000, `rejected ${elapsed} ms after the drop, not at the 30 s timeout`);
  const closes = await waitFor(async () => {
    const seen = await page.evaluate(() => window.t4.closes);
    return seen.length > 0 && seen;
  }, 5000, "the close event");
  // Cut off without a closing handshake: 1006, not clean.
  assert.deepEqual(closes.map(({ code, wasClean }) => ({ code, wasClean })), [{ code: 1006, wasClean: false }]);
  const state = await page.evaluate(() => {
    const { peer, transport } = window.t4;
    const state = { pending: peer.pending, connected: transport.connected };
    peer.destroy();
    return state;
  });
  assert.deepEqual(state, { pending: 0, connected: false });
  assert.deepEqual(pageErrors.slice(mark), [], "nothing threw in the page");
});

test("reconnects with capped backoff when the server comes back, and the app re-syncs", { timeout: 30_000 }, async () => {
  const mark = pageErrors.length;
  // The app's state outlives any one connection and any one server process.
  const state = { items: [] };
  const accept = (wss) => {
    wss.on("connection", (socket) => {
      const peer = new lib.Peer(lib.webSocketTransport(socket), { timeout: 5000 });
      peer.method("t5.add", ([item]) => state.items.push(item));
      peer.method("get_current_state", () => ({ items: [...state.items] }));
      socket.on("close", () => peer.destroy());
    });
    return wss;
  };
  const first = accept(await listen());
  const port = first.address().port;
  let second;
  try {
    const added = await page.evaluate(async (url) => {
      const transport = lib.webSocketTransport(url, { reconnect: { initialDelay: 50, maxDelay: 200 } });
      const peer = new lib.Peer(transport, { timeout: 5000 });
      const t5 = (window.t5 = { peer, transport, opens: 0, closes: 0, reconnecting: [], reconnected: [], synced: [] });
      peer.on("open", () => t5.opens++);
      peer.on("close", () => t5.closes++);
      peer.on("reconnecting", ({ attempt, delay }) => t5.reconnecting.push({ attempt, delay }));
      peer.on("reconnected", async ({ attempt }) => {
        t5.reconnected.push(attempt);
        t5.synced.push(await settle(peer.request("get_current_state")));
      });
      return [await peer.request("t5.add", ["a"]), await peer.request("t5.add", ["b"])];
    }, `ws://127.0.0.1:${port}/`);
    assert.deepEqual(added, [1, 2]);

    await shut(first);
    state.items.push("c"); // changed by someone else while this client is away
    // Four attempts: uncapped, the fourth delay would be about 400 ms.
    await waitFor(() => page.evaluate(() => window.t5.reconnecting.length >= 4), 10_000, "four reconnect attempts");
    const down = await page.evaluate(() => ({
      connected: window.t5.transport.connected,
      closes: window.t5.closes,
      reconnected: window.t5.reconnected.length,
    }));
    assert.equal(down.connected, false);
    assert.ok(down.closes >= 1, "`close` fired when the server went away");
    assert.equal(down.reconnected, 0);

    second = accept(await listen(port));
    await waitFor(() => page.evaluate(() => window.t5.synced.length === 1), 5000, "the re-sync after reconnecting");
    await sleep(300);
    const log = await page.evaluate(() => {
      const { reconnecting, reconnected, synced, opens, transport } = window.t5;
      return { reconnecting, reconnected, synced, opens, connected: transport.connected };
    });
    assert.deepEqual(log.reconnecting.map((event) => event.attempt), log.reconnecting.map((_, i) => i + 1), "attempts count from 1");
    for (const { attempt, delay } of log.reconnecting) {
      assert.ok(delay > 0 && delay <= 200, `attempt ${attempt}: delay ${delay} ms within (0, maxDelay]`);
    }
    const firstDelay = log.reconnecting[0].delay;
    assert.ok(firstDelay >= 40 && firstDelay <= 60, `first delay ${firstDelay} ms is initialDelay ± 20%`);
    assert.ok(Math.max(...log.reconnecting.map((event) => event.delay)) >= 150, "the delay grew towards maxDelay");
    assert.deepEqual(log.reconnected, [log.reconnecting.at(-1).attempt], "reconnected once, on the last attempt");
    assert.deepEqual(log.synced, [{ ok: true, value: { items: ["a", "b", "c"] } }]);
    assert.equal(log.opens, 2, "`open` fired for the first connection and the reconnection");
    assert.equal(log.connected, true);
    assert.equal(second.clients.size, 1);

    const later = await page.evaluate(async () => {
      const value = await window.t5.peer.request("t5.add", ["d"]);
      return { value, attempts: window.t5.reconnecting.length };
    });
    assert.deepEqual(later, { value: 4, attempts: log.reconnecting.length }, "a normal call works; no more attempts");
    assert.deepEqual(state.items, ["a", "b", "c", "d"]);
  } finally {
    await page.evaluate(() => window.t5?.peer.destroy());
    for (const wss of [first, second]) if (wss && servers.has(wss)) await shut(wss);
  }
  assert.deepEqual(pageErrors.slice(mark), [], "nothing threw in the page");
});

test("per-call timeout against a slow server; a WebSocket peer's default timeout is long", { timeout: 20_000 }, async () => {
  const mark = pageErrors.length;
  const result = await page.evaluate(async (url) => {
    // No `timeout` option: the WebSocket default applies.
    const transport = lib.webSocketTransport(url);
    const defaultTimeout = transport.defaultTimeout;
    const peer = new lib.Peer(transport);
    const started = performance.now();
    const slow = await settle(peer.request("t6.slow", [], { timeout: 200 }));
    const elapsed = performance.now() - started;
    const never = settle(peer.request("t6.never"));
    await sleep(1000);
    const pendingAfterOneSecond = peer.pending;
    peer.destroy();
    return { slow, elapsed, pendingAfterOneSecond, never: await never, defaultTimeout };
  }, urlOf(shared, "t6"));
  assert.equal(result.defaultTimeout, 60_000, "60 s, as jrpc-oo's remote timeout");
  assert.equal(result.slow.code, lib.ErrorCode.REQUEST_TIMEOUT);
  assert.ok(result.elapsed >= 190 && result.elapsed < 900, `timed out after ${result.elapsed} ms`);
  assert.equal(result.pendingAfterOneSecond, 1, "the call without a timeout was still pending after 1 s");
  assert.equal(result.never.code, lib.ErrorCode.DESTROYED);
  assert.deepEqual(pageErrors.slice(mark), [], "nothing threw in the page");
});

test("destroy() stops reconnecting: no attempt after it, and calls made then are refused", { timeout: 20_000 }, async () => {
  const mark = pageErrors.length;
  // A port nothing listens on: every attempt fails.
  const closed = await listen();
  const port = closed.address().port;
  await shut(closed);
  const result = await page.evaluate(async (url) => {
    const transport = lib.webSocketTransport(url, { reconnect: { initialDelay: 30, maxDelay: 60, jitter: 0 } });
    const peer = new lib.Peer(transport, { timeout: 5000 });
    const attempts = [];
    peer.on("reconnecting", ({ attempt }) => attempts.push(attempt));
    const waiting = settle(peer.request("anything"));
    while (attempts.length < 3) await sleep(10);
    peer.destroy();
    const atDestroy = attempts.length;
    await sleep(400);
    return {
      atDestroy,
      after: attempts.length,
      waiting: await waiting,
      later: await settle(peer.request("anything")),
      connected: transport.connected,
    };
  }, `ws://127.0.0.1:${port}/`);
  assert.ok(result.atDestroy >= 3);
  assert.equal(result.after, result.atDestroy, "no attempt after destroy()");
  assert.equal(result.waiting.code, lib.ErrorCode.DESTROYED, "the call waiting for a connection was rejected");
  assert.equal(result.later.code, lib.ErrorCode.DESTROYED);
  assert.equal(result.connected, false);
  assert.deepEqual(pageErrors.slice(mark), [], "nothing threw in the page");
});

test("garbage and binary frames get -32700 answers and the connection keeps working", { timeout: 20_000 }, async () => {
  const mark = pageErrors.length;
  const raw = await listen();
  const sockets = [];
  raw.on("connection", (socket) => sockets.push(socket));
  try {
    await page.evaluate(async (url) => {
      const transport = lib.webSocketTransport(url);
      const peer = new lib.Peer(transport, { timeout: 5000 });
      const t7 = (window.t7 = { peer, transport, errors: [] });
      peer.on("error", ({ error }) => t7.errors.push(String(error?.message ?? error)));
      peer.method("browser.sum", (numbers) => numbers.reduce((a, b) => a + b, 0));
      await new Promise((resolve, reject) => {
        peer.on("open", resolve);
        setTimeout(() => reject(new Error("the socket did not open")), 5000);
      });
    }, urlOf(raw, "t7"));
    const socket = await waitFor(() => sockets[0], 5000, "the raw connection");
    const inbox = [];
    socket.on("message", (data, isBinary) => inbox.push({ isBinary, message: JSON.parse(data.toString()) }));
    const reply = async (n) => {
      await waitFor(() => inbox.length >= n, 5000, `reply ${n}`);
      assert.equal(inbox.length, n, "one reply per frame");
      assert.equal(inbox[n - 1].isBinary, false, "replies are text frames");
      return inbox[n - 1].message;
    };

    for (const [n, garbage] of [[1, '{"jsonrpc": "2.0", "method"'], [2, "not json at all"]]) {
      socket.send(garbage);
      const message = await reply(n);
      assert.equal(message.jsonrpc, "2.0");
      assert.equal(message.id, null);
      assert.equal(message.error.code, -32700);
      assert.equal(message.error.message, "Parse error");
    }

    socket.send(Buffer.from([0x7b, 0x7d, 0x00, 0xff]));
    const binary = await reply(3);
    assert.equal(binary.id, null);
    assert.equal(binary.error.code, -32700);
    assert.equal(binary.error.message, "Parse error: not text (send JSON text)");
    const errors = await waitFor(async () => {
      const seen = await page.evaluate(() => window.t7.errors);
      return seen.length > 0 && seen;
    }, 5000, "the error event");
    assert.ok(errors.some((text) => /binary/.test(text)), `an error event mentions binary frames: ${JSON.stringify(errors)}`);

    socket.send(JSON.stringify({ jsonrpc: "2.0", method: "browser.sum", params: [1, 2, 3], id: 7 }));
    assert.deepEqual(await reply(4), { jsonrpc: "2.0", result: 6, id: 7 });
    assert.equal(await page.evaluate(() => window.t7.transport.connected), true);
  } finally {
    await page.evaluate(() => window.t7?.peer.destroy());
    await shut(raw);
  }
  assert.deepEqual(pageErrors.slice(mark), [], "nothing threw in the page");
});

test("streaming over the socket: onChunk and for await side by side, then cancelling", { timeout: 20_000 }, async () => {
  const mark = pageErrors.length;
  await page.evaluate((url) => {
    window.t8 = { peer: new lib.Peer(lib.webSocketTransport(url), { timeout: 5000 }) };
  }, urlOf(shared, "t8"));
  try {
    const both = await page.evaluate(async () => {
      const { peer } = window.t8;
      const viaCallback = [];
      const first = peer.request("t8.count", ["a", 5], { onChunk: (chunk) => viaCallback.push(chunk) });
      const s = peer.stream("t8.count", ["b", 5]);
      const viaIterator = [];
      const second = (async () => {
        for await (const chunk of s) viaIterator.push(chunk);
        return s.result;
      })();
      const [a, b] = await Promise.all([first, second]);
      return { viaCallback, viaIterator, a, b };
    });
    assert.notEqual(t8order.join(""), "aaaaabbbbb", "the two streams overlapped on the server");
    assert.deepEqual(both.viaCallback, [0, 1, 2, 3, 4].map((i) => ({ label: "a", i })));
    assert.deepEqual(both.viaIterator, [0, 1, 2, 3, 4].map((i) => ({ label: "b", i })));
    assert.deepEqual(both.a, { label: "a", total: 5 });
    assert.deepEqual(both.b, { label: "b", total: 5 });

    const cancelled = await page.evaluate(async () => {
      const { peer } = window.t8;
      const s = peer.stream("t8.ticker", []);
      const result = settle(s.result);
      const taken = [];
      for await (const chunk of s) {
        taken.push(chunk);
        if (taken.length === 3) break;
      }
      return { taken, result: await result, pending: peer.pending };
    });
    assert.deepEqual(cancelled.taken, [0, 1, 2]);
    assert.equal(cancelled.result.code, lib.ErrorCode.REQUEST_CANCELLED);
    assert.equal(cancelled.pending, 0);
    await waitFor(() => ticker.aborted, 2000, "the handler's signal to fire");
    await waitFor(() => ticker.finished, 2000, "the producer to return");
    const emitted = ticker.emitted;
    await sleep(200);
    assert.equal(ticker.emitted, emitted, "no chunks produced after the abort");
    assert.ok(emitted < 25, `the producer stopped soon after 3 chunks were taken (it made ${emitted})`);
  } finally {
    await page.evaluate(() => window.t8?.peer.destroy());
  }
  assert.deepEqual(pageErrors.slice(mark), [], "nothing threw in the page");
});

test("Node ↔ Node: a wrapped `ws` socket and a URL with options.WebSocket, both directions", { timeout: 20_000 }, async () => {
  const wrapped = new lib.Peer(lib.webSocketTransport(new WebSocket(urlOf(shared, "t9-socket"))), { timeout: 5000 });
  const dialled = new lib.Peer(lib.webSocketTransport(urlOf(shared, "t9-url"), { WebSocket }), { timeout: 5000 });
  const exercise = async (name, peer) => {
    peer.method("node.whoami", () => name);
    peer.method("node.sum", (numbers) => numbers.reduce((a, b) => a + b, 0));
    assert.equal(await peer.request("t1.add", [20, 22]), 42);
    assert.equal(await peer.request("t1.greet", { name, punctuation: "?" }), `hello, ${name}?`);
    assert.deepEqual(await peer.remote().Repo.get_file_tree("tests"), { root: "tests", entries: ["js/", "wasm.rs"] });
    await assert.rejects(peer.request("t1.fail"), (error) =>
      error instanceof lib.RPCError && error.code === lib.ErrorCode.INTERNAL_ERROR && error.message === "disk on fire");
    const { peer: server } = await connection(name);
    assert.equal(await server.request("node.whoami"), name);
    assert.equal(await server.request("node.sum", [1, 2, 3]), 6);
    await assert.rejects(server.request("node.nope"), (error) => error.code === lib.ErrorCode.METHOD_NOT_FOUND);
  };
  try {
    await Promise.all([exercise("t9-socket", wrapped), exercise("t9-url", dialled)]);
    assert.equal(wrapped.pending + dialled.pending, 0);
  } finally {
    wrapped.destroy();
    dialled.destroy();
  }
});
