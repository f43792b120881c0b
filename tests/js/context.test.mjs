// Every call's context in Node, on real channels (MessageChannel, a
// worker_threads Worker, WebSockets on 127.0.0.1): a hub's auth middleware,
// the order of middleware and interceptors around a call, its result and
// its error, a caller's deadline as the handler's signal, a retried call
// with an idempotency key answered once, and strangers (json-rpc-2.0,
// vscode-jsonrpc) getting requests without metadata.
import { once } from "node:events";
import { test } from "node:test";
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";
import { WebSocket, WebSocketServer } from "ws";
import { JSONRPCClient as StrangerClient, JSONRPCServer as StrangerServer, JSONRPCServerAndClient } from "json-rpc-2.0";
import * as vscode from "vscode-jsonrpc/node.js";
import * as v from "valibot";

const require = createRequire(import.meta.url);
const { Peer, RPCError, portTransport } = require("../../pkg/node/wiggum_rpc.cjs");
const { webSocketTransport } = require("../../pkg/node/websocket.cjs");
const { Hub } = require("../../pkg/node/hub.cjs");
const { retry, idempotency } = require("../../pkg/node/middleware.cjs");

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const UNAUTHORIZED = -32050;

/** A WebSocket server on 127.0.0.1 and its URL; `close()` ends it. */
async function socketServer() {
  const wss = new WebSocketServer({ host: "127.0.0.1", port: 0 });
  await once(wss, "listening");
  const close = async () => {
    for (const socket of wss.clients) socket.terminate();
    await new Promise((resolve) => wss.close(resolve));
  };
  return { wss, url: `ws://127.0.0.1:${wss.address().port}/`, close };
}

/** A server Peer and a client Peer on a MessageChannel (`transport`, `options`: the client's); `ends()` destroys both. */
function portPeers(transport, options) {
  const { port1, port2 } = new MessageChannel();
  const server = new Peer(portTransport(port1));
  const client = new Peer(portTransport(port2, transport), options);
  return { port1, port2, server, client, ends: () => (client.destroy(), server.destroy()) };
}

/** A Peer over a WebSocket that says hello (so metadata crosses), once open. */
async function dial(url, options = {}) {
  const transport = webSocketTransport(url, { WebSocket, handshake: "announce", ...options.transport });
  const peer = new Peer(transport, options.peer);
  if (!transport.connected) await new Promise((resolve) => peer.on("open", resolve));
  // The hub's answer to the hello: from then on the client knows it takes metadata.
  await sleep(50);
  return peer;
}

test("auth: a hub middleware refuses calls without a valid token, and hands the user to the handler", async () => {
  const server = await socketServer();
  const hub = new Hub().attach(server.wss);
  const users = new Map([["alice-token", { name: "alice" }]]);
  let runs = 0;
  hub.use((call, next) => {
    const user = users.get(call.meta?.token);
    if (user === undefined) throw new RPCError(UNAUTHORIZED, `Unauthorized: ${call.client} sent no valid token`);
    call.context.user = user;
    return next();
  });
  hub.method("whoami", (params, context) => {
    runs++;
    return `${context.user.name} on ${context.client}`;
  });
  const alice = await dial(server.url);
  alice.intercept((call, next) => {
    call.meta.token = "alice-token";
    return next();
  });
  const mallory = await dial(server.url);
  const forger = await dial(server.url);
  forger.intercept((call, next) => {
    call.meta.token = "guess";
    return next();
  });
  try {
    assert.match(await alice.request("whoami"), /^alice on client-\d+$/);
    for (const stranger of [mallory, forger]) {
      const error = await stranger.request("whoami").catch((e) => e);
      assert.equal(error.code, UNAUTHORIZED, String(error));
      assert.match(error.message, /^Unauthorized: client-\d+ sent no valid token$/);
    }
    assert.equal(runs, 1, "the handler ran for alice only");
  } finally {
    for (const peer of [alice, mallory, forger]) peer.destroy();
    hub.destroy();
    await server.close();
  }
});

test("order: three middlewares and three interceptors run in order around a call, and see its result and its error", async () => {
  const { server, client, ends } = portPeers();
  const log = [];
  for (const n of [1, 2, 3]) {
    client.intercept(async (call, next) => {
      log.push(`i${n} ${call.method}`);
      call.meta[`i${n}`] = true;
      try {
        const result = await next();
        log.push(`i${n} result ${result}`);
        return result;
      } catch (error) {
        log.push(`i${n} error ${error.code}`);
        throw error;
      }
    });
    server.use(async (call, next) => {
      log.push(`m${n} ${call.method} ${Object.keys(call.meta ?? {}).filter((key) => key.startsWith("i")).join(",")}`);
      call.context.depth = n;
      try {
        const result = await next();
        log.push(`m${n} result ${result}`);
        return result;
      } catch (error) {
        log.push(`m${n} error ${error.code}`);
        throw error;
      }
    });
  }
  server.method("add", ([a, b], context) => {
    log.push(`handler depth ${context.depth}`);
    return a + b;
  });
  server.method("fail", () => {
    log.push("handler fails");
    throw new RPCError(-32042, "it failed", { why: "asked to" });
  });
  try {
    await client.request("add", [0, 0]); // the hellos have crossed: metadata goes from now on
    log.length = 0;
    assert.equal(await client.request("add", [2, 3]), 5);
    assert.deepEqual(log, [
      "i1 add", "i2 add", "i3 add",
      "m1 add i1,i2,i3", "m2 add i1,i2,i3", "m3 add i1,i2,i3",
      "handler depth 3",
      "m3 result 5", "m2 result 5", "m1 result 5",
      "i3 result 5", "i2 result 5", "i1 result 5",
    ]);
    log.length = 0;
    const error = await client.request("fail", []).catch((e) => e);
    assert.equal(error.code, -32042);
    assert.deepEqual(error.data, { why: "asked to" });
    assert.deepEqual(log, [
      "i1 fail", "i2 fail", "i3 fail",
      "m1 fail i1,i2,i3", "m2 fail i1,i2,i3", "m3 fail i1,i2,i3",
      "handler fails",
      "m3 error -32042", "m2 error -32042", "m1 error -32042",
      "i3 error -32042", "i2 error -32042", "i1 error -32042",
    ]);
  } finally {
    ends();
  }
});

test("a method with schemas, through middleware: a schema's verdict is answered as the check decided, and the middleware sees it as an error", async () => {
  require("../../pkg/node/contracts.cjs");
  const { server, client, ends } = portPeers();
  const seen = [];
  server.use(async (call, next) => {
    try {
      const result = await next();
      seen.push(`${call.method} result ${JSON.stringify(result)}`);
      return result;
    } catch (error) {
      seen.push(`${call.method} error ${error.code}`);
      throw error;
    }
  });
  server.method("add", ([a, b]) => a + b, { params: v.tuple([v.number(), v.number()]), result: v.number() });
  server.method("broken", () => "not a number", { result: v.number() });
  try {
    assert.equal(await client.request("add", [2, 3]), 5);
    const invalid = await client.request("add", [2, "three"]).catch((e) => e);
    assert.equal(invalid.code, -32602, String(invalid));
    assert.ok(Array.isArray(invalid.data) && invalid.data.length > 0, "the schema's issues are the error's data");
    const broken = await client.request("broken", []).catch((e) => e);
    assert.equal(broken.code, -32603, String(broken));
    assert.equal(broken.data, undefined, "nothing of the result leaves");
    assert.deepEqual(seen, ["add result 5", "add error -32602", "broken error -32603"]);
  } finally {
    ends();
  }
});

test("calls in flight keep their metadata: a packed batch carries each call's, deadlines among them", async () => {
  const { port1, server, client, ends } = portPeers({ handshake: "wait" }, { timeout: 5_000 });
  const wire = [];
  port1.on("message", (message) => wire.push(message));
  const seen = [];
  server.use((call, next) => {
    seen.push([call.params[0], call.meta?.n, call.meta?.deadline]);
    return next();
  });
  server.method("echo", ([n]) => n);
  try {
    await client.request("echo", [0]);
    wire.length = 0;
    seen.length = 0;
    const answers = await Promise.all([1, 2, 3, 4, 5].map((n) => client.request("echo", [n], n === 3 ? {} : { meta: { n } })));
    assert.deepEqual(answers, [1, 2, 3, 4, 5]);
    assert.deepEqual(seen, [[1, 1, 5_000], [2, 2, 5_000], [3, undefined, 5_000], [4, 4, 5_000], [5, 5, 5_000]]);
    const packed = wire.find((message) => message.packed === "calls");
    assert.deepEqual(packed?.meta, [{ n: 2, deadline: 5_000 }, { deadline: 5_000 }, { n: 4, deadline: 5_000 }, { n: 5, deadline: 5_000 }]);
  } finally {
    ends();
  }
});

test("a middleware that throws answers the call with an error, one that answers skips the handler, one that hangs is ended by the deadline", async () => {
  const { port2, server, client, ends } = portPeers();
  const answers = [];
  port2.on("message", (message) => answers.push(message));
  let runs = 0;
  let hung;
  server.use((call, next) => {
    if (call.method === "throws") throw new Error("a middleware's own bug");
    if (call.method === "cached") return "from the middleware";
    if (call.method === "hangs") {
      hung = call.context.signal;
      return new Promise(() => {});
    }
    return next();
  });
  for (const name of ["throws", "cached", "hangs"]) {
    server.method(name, () => {
      runs++;
      return "from the handler";
    });
  }
  try {
    await sleep(20);
    const thrown = await client.request("throws", []).catch((e) => e);
    assert.equal(thrown.code, -32603);
    assert.equal(await client.request("cached", []), "from the middleware");
    const started = performance.now();
    const timedOut = await client.request("hangs", [], { timeout: 200 }).catch((e) => e);
    assert.equal(timedOut.code, -32099, String(timedOut));
    assert.ok(performance.now() - started >= 190);
    await sleep(50);
    assert.equal(hung.aborted, true, "the hung chain's signal aborted at the deadline");
    assert.equal(hung.reason.code, -32099);
    assert.equal(runs, 0, "no handler ran");
    // The server answered the hung call itself once the caller's time was up.
    const ended = answers.find((message) => message.error?.code === -32099);
    assert.match(ended?.error.message ?? "", /^Deadline exceeded$/);
  } finally {
    ends();
  }
});

test("deadline: a 300 ms timeout reaches a worker's handler as a signal that aborts 300 ms after the call reached it", async () => {
  const source = `
    const { parentPort } = require("node:worker_threads");
    const { Peer, selfTransport } = require(${JSON.stringify(require.resolve("../../pkg/node/wiggum_rpc.cjs"))});
    const peer = new Peer(selfTransport());
    peer.method("ping", () => "pong");
    peer.method("slow", (params, { signal, meta }) => {
      const started = performance.now();
      return new Promise((resolve, reject) => {
        signal.addEventListener("abort", () => {
          peer.notify("aborted", [performance.now() - started, signal.reason.code, meta.deadline]);
          reject(signal.reason);
        });
      });
    });
  `;
  const worker = new Worker(source, { eval: true });
  const { workerTransport } = require("../../pkg/node/wiggum_rpc.cjs");
  const page = new Peer(workerTransport(worker));
  const aborted = new Promise((resolve) => page.onNotify("aborted", resolve));
  try {
    assert.equal(await page.request("ping", []), "pong"); // the worker is up, the hellos have crossed
    const started = performance.now();
    const error = await page.request("slow", [], { timeout: 300 }).catch((e) => e);
    const [inHandler, reason, deadline] = await aborted;
    const atCaller = performance.now() - started;
    assert.equal(error.code, -32099);
    assert.equal(deadline, 300, "the time left crossed in the call's metadata");
    assert.equal(reason, -32099, "the signal's reason is a timeout");
    // Timers never fire early; a busy machine may fire them late.
    assert.ok(inHandler >= 299 && inHandler < 1_000, `the handler's signal aborted after ${inHandler} ms`);
    assert.ok(atCaller >= 300, `the caller heard of it after ${atCaller} ms`);
  } finally {
    page.destroy();
    await worker.terminate();
  }
});

test("idempotency: a call retried after a dropped socket runs its handler once and gets the first answer", async () => {
  const server = await socketServer();
  const served = [];
  const once_ = idempotency();
  let runs = 0;
  server.wss.on("connection", (socket) => {
    const peer = new Peer(webSocketTransport(socket)).use(once_);
    served.push(peer);
    peer.method("charge", async ({ amount }, { meta }) => {
      runs++;
      const run = runs;
      // The first run loses its connection before it answers.
      if (run === 1) for (const client of server.wss.clients) client.terminate();
      await sleep(100);
      return { charged: amount, run, key: meta.idempotencyKey };
    });
  });
  const client = await dial(server.url, { transport: { reconnect: { initialDelay: 20, maxDelay: 50 }, resume: false } });
  const attempts = [];
  client.intercept(async (call, next) => {
    try {
      return await next();
    } finally {
      attempts.push(call.meta.idempotencyKey);
    }
  });
  client.intercept(retry({ attempts: 5, delay: 150 }));
  try {
    const answer = await client.request("charge", { amount: 42 }, { idempotent: true });
    assert.equal(runs, 1, "the handler ran once");
    assert.equal(answer.run, 1, "the retry got the first run's answer");
    assert.equal(answer.charged, 42);
    assert.equal(typeof answer.key, "string");
    // One call through the outermost interceptor, each attempt with the key.
    assert.deepEqual(attempts, [answer.key]);
    // The same key with other params is refused, and runs nothing.
    const reused = await client.request("charge", { amount: 1_000 }, { meta: { idempotencyKey: answer.key } }).catch((e) => e);
    assert.equal(reused.code, -32602);
    assert.match(reused.message, /used before with other params/);
    // Two calls with one key at once: one run, one answer.
    const [a, b] = await Promise.all([1, 2].map(() => client.request("charge", { amount: 7 }, { meta: { idempotencyKey: "twice" } })));
    assert.deepEqual(a, b);
    assert.equal(runs, 2);
  } finally {
    client.destroy();
    for (const peer of served) peer.destroy();
    await server.close();
  }
});

test("metadata from a stranger: too deep or too large is refused as any such message is (the next call is served), of the wrong kind is none, a deadline that passes is answered with the spec's error object", async () => {
  const server = await socketServer();
  const hub = new Hub().attach(server.wss);
  const metas = [];
  hub.use((call, next) => {
    metas.push(call.meta);
    return next();
  });
  hub.method("echo", (params) => params);
  hub.method("hangs", () => new Promise(() => {}));
  const socket = new WebSocket(server.url);
  const answers = [];
  socket.on("message", (data) => answers.push(JSON.parse(String(data))));
  const answer = async (id) => {
    for (let waited = 0; waited < 5_000; waited += 10) {
      const found = answers.find((message) => message.id === id || (id === null && message.id === null && message.error));
      if (found !== undefined) return found;
      await sleep(10);
    }
    throw new Error(`no answer to ${id}`);
  };
  try {
    await once(socket, "open");
    // It said hello offering metadata: the hub reads a `meta` it is sent.
    socket.send(JSON.stringify({ jsonrpc: "2.0", method: "$/ready", params: { ack: false, meta: true } }));
    const request = (id, meta) => `{"jsonrpc":"2.0","method":"echo","params":[${id}],"id":${id},"meta":${meta}}`;
    socket.send(request(1, "[".repeat(2_000) + "]".repeat(2_000)));
    const deep = await answer(null);
    assert.deepEqual(deep.error, { code: -32600, message: "Message nested too deeply" });
    assert.deepEqual(metas, [], "no middleware and no handler ran");
    // A `meta` that is no object is no metadata; a deadline that is no number is none.
    socket.send(request(3, '"a string"'));
    socket.send(request(4, '{"deadline":"soon","user":"u"}'));
    assert.deepEqual((await answer(3)).result, [3]);
    assert.deepEqual((await answer(4)).result, [4]);
    assert.deepEqual(metas, [undefined, { deadline: "soon", user: "u" }]);
    // A deadline that is one: the stranger gets the spec's error object when it passes, with its id.
    const asked = performance.now();
    socket.send('{"jsonrpc":"2.0","method":"hangs","id":"h","meta":{"deadline":50}}');
    assert.deepEqual(await answer("h"), { jsonrpc: "2.0", error: { code: -32099, message: "Deadline exceeded" }, id: "h" });
    assert.ok(performance.now() - asked >= 45, "not before its 50 ms");
    // Past the largest message (10 MB): the socket is closed as too big (1009), nothing runs.
    const closed = once(socket, "close");
    socket.send(request(2, JSON.stringify({ blob: "x".repeat(11 << 20) })));
    const [code] = await closed;
    assert.equal(code, 1009);
    assert.equal(metas.length, 3);
  } finally {
    socket.terminate();
    hub.destroy();
    await server.close();
  }
});

test("strangers: json-rpc-2.0 and vscode-jsonrpc receive plain JSON-RPC, no metadata member, whatever the interceptors add", async () => {
  const addMeta = (call, next) => {
    call.meta.traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    call.meta.idempotencyKey = "k";
    return next();
  };
  // json-rpc-2.0 on a MessageChannel.
  {
    const { port1, port2 } = new MessageChannel();
    const received = [];
    const other = new JSONRPCServerAndClient(new StrangerServer(), new StrangerClient((payload) => port1.postMessage(payload)));
    other.addMethod("add", ([a, b]) => a + b);
    port1.on("message", (message) => {
      received.push(message);
      other.receiveAndSend(message).catch(() => {});
    });
    const ours = new Peer(portTransport(port2)).intercept(addMeta);
    try {
      await sleep(20);
      assert.equal(await ours.request("add", [2, 3], { timeout: 2_000, meta: { user: "u" } }), 5);
      const calls = received.filter((message) => message.method === "add");
      assert.equal(calls.length, 1);
      assert.deepEqual(Object.keys(calls[0]).sort(), ["id", "jsonrpc", "method", "params"]);
    } finally {
      ours.destroy();
      port1.close();
    }
  }
  // vscode-jsonrpc on a MessageChannel.
  {
    const { port1, port2 } = new MessageChannel();
    const received = [];
    port1.on("message", (message) => received.push(message));
    const connection = vscode.createMessageConnection(new vscode.PortMessageReader(port1), new vscode.PortMessageWriter(port1));
    connection.onRequest("add", (a, b) => a + b); // positional params, spread
    connection.listen();
    const ours = new Peer(portTransport(port2)).intercept(addMeta);
    try {
      await sleep(20);
      assert.equal(await ours.request("add", [4, 5], { timeout: 2_000 }), 9);
      const calls = received.filter((message) => message.method === "add");
      assert.equal(calls.length, 1);
      assert.deepEqual(Object.keys(calls[0]).sort(), ["id", "jsonrpc", "method", "params"]);
    } finally {
      ours.destroy();
      connection.dispose();
      port1.close();
    }
  }
});
