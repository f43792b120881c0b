// Browser scenarios (scripts/browser-suite.mjs runs each one by name, in
// Chromium and in Firefox, on the web build at /pkg/). Everything here is real: a real
// MessageChannel, Worker, iframe (same-origin and sandboxed), postMessage.
//
// No static imports: this module is also loaded, unused, inside the sandboxed
// iframe, where absolute imports cannot resolve.

let lib;
let fixtures;
let reference;

async function load() {
  // The web build, at the URL every page of the suite loads it by.
  if (lib === undefined) {
    lib = await import("/pkg/wiggum_rpc.js");
    await lib.default();
    // What the package's entries do on import (the root alone is tested in
    // Node: tests/js/entries.test.mjs).
    (await import("/js/entries/remote.js")).installRemote(lib);
    (await import("/js/entries/stream.js")).installStream(lib);
    (await import("/js/entries/trace.js")).installTrace(lib);
    (await import("/js/entries/contracts.js")).installContracts(lib);
    (await import("/js/entries/introspection.js")).installIntrospection(lib);
  }
  fixtures ??= await import("/tests/browser/methods.js");
  reference ??= await import("/tests/browser/reference.js");
}

export async function scenario(name) {
  await load();
  const run = scenarios[name];
  if (!run) throw new Error(`no scenario ${name}`);
  await run();
}

export async function errorCode(name) {
  await load();
  return lib.ErrorCode[name];
}

// ---- helpers ---------------------------------------------------------------

function assert(condition, what) {
  if (!condition) throw new Error(`assertion failed: ${what}`);
}

function eq(actual, expected, what) {
  const a = JSON.stringify(actual);
  const e = JSON.stringify(expected);
  if (a !== e) throw new Error(`${what}: expected ${e}, got ${a}`);
}

async function rejects(promise, code, what) {
  let error;
  try {
    const value = await promise;
    throw new Error(`${what}: expected rejection with ${code}, resolved with ${JSON.stringify(value)}`);
  } catch (e) {
    error = e;
  }
  if (!(error instanceof lib.RPCError)) throw new Error(`${what}: not an RPCError: ${error}`);
  assert(error instanceof Error, `${what}: RPCError is an Error`);
  eq(error.code, code, `${what}: code (${error.message})`);
  return error;
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function within(ms, promise, what) {
  let timer;
  const limit = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, limit]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Collects what arrives on a raw port; `take(n)` waits for n messages. The
 * `$/ready` handshake is kept apart, in `ready`: a raw port is a peer that
 * never answers it, unless a test calls `announce(capabilities)`.
 */
function recorder(port) {
  const seen = [];
  const ready = [];
  let wake = () => {};
  port.addEventListener("message", (event) => {
    if (event.data?.method === "$/ready") ready.push(event.data);
    else seen.push(event.data);
    wake();
  });
  port.start();
  return {
    seen,
    ready,
    /** Answers as a wiggum-rpc endpoint would, offering `capabilities`. */
    announce(capabilities) {
      port.postMessage({ jsonrpc: "2.0", method: "$/ready", params: { ack: true, ...capabilities } });
    },
    /** Waits for the endpoint's hello (a loaded machine may take longer than a turn or two). */
    async hello(ms = 2000) {
      const until = Date.now() + ms;
      while (ready.length === 0) {
        if (Date.now() > until) throw new Error("expected a $/ready hello, got none");
        await new Promise((resolve) => {
          wake = resolve;
          setTimeout(resolve, 20);
        });
      }
      return ready;
    },
    async take(n, ms = 2000) {
      const until = Date.now() + ms;
      while (seen.length < n) {
        if (Date.now() > until) throw new Error(`expected ${n} messages, got ${JSON.stringify(seen)}`);
        await new Promise((resolve) => {
          wake = resolve;
          setTimeout(resolve, 20);
        });
      }
      return seen.splice(0, n);
    },
  };
}

function servedPair(options) {
  const { port1, port2 } = new MessageChannel();
  const server = new lib.JSONRPCServer(lib.portTransport(port1));
  fixtures.serveFixtures(server, lib);
  const client = new lib.JSONRPCClient(lib.portTransport(port2), options);
  return { server, client, destroy: () => (client.destroy(), server.destroy()) };
}

/** A fixtures server on a port, and the raw other end with a recorder: for wire-level checks. */
function rawServer(options) {
  const { port1, port2 } = new MessageChannel();
  const server = new lib.JSONRPCServer(lib.portTransport(port1), options);
  fixtures.serveFixtures(server, lib);
  return { server, port: port2, raw: recorder(port2), destroy: () => (server.destroy(), port2.close()) };
}

function samplePayload() {
  const bytes = new Uint8Array([1, 2, 3, 250]);
  const buffer = new Uint8Array([9, 8, 7]).buffer;
  const map = new Map([["a", 1], ["nested", new Uint8Array([5])]]);
  const date = new Date("2026-01-02T03:04:05.000Z");
  const blob = new Blob(["hello"]);
  return [bytes, buffer, map, date, blob];
}

const samplePayloadDescription = [
  { type: "Uint8Array", content: [1, 2, 3, 250] },
  { type: "ArrayBuffer", content: [9, 8, 7] },
  { type: "Map", content: [["a", 1], ["nested", { type: "Uint8Array", content: [5] }]] },
  { type: "Date", content: "2026-01-02T03:04:05.000Z" },
  { type: "Blob", content: 5 },
];

/** Checks that structured-clone types survive both ways through `endpoint`. */
async function checkPassthrough(endpoint, where) {
  eq(await endpoint.request("describe", samplePayload()), samplePayloadDescription, `${where}: params arrive intact`);
  const [bytes, buffer, map, date, blob] = await endpoint.request("echo", samplePayload());
  assert(bytes instanceof Uint8Array && bytes[3] === 250, `${where}: Uint8Array result`);
  assert(buffer instanceof ArrayBuffer && buffer.byteLength === 3, `${where}: ArrayBuffer result`);
  assert(map instanceof Map && map.get("nested") instanceof Uint8Array, `${where}: Map result`);
  assert(date instanceof Date && date.getTime() === Date.UTC(2026, 0, 2, 3, 4, 5), `${where}: Date result`);
  assert(blob instanceof Blob && (await blob.text()) === "hello", `${where}: Blob result`);
}

/** Checks zero-copy moves both ways through `endpoint`. */
async function checkTransfer(endpoint, where) {
  const buffer = new Uint8Array(4096).fill(7).buffer;
  eq(await endpoint.request("byteLength", [buffer], { transfer: [buffer] }), 4096, `${where}: transferred params`);
  eq(buffer.byteLength, 0, `${where}: the sender's buffer was moved, not copied`);
  const other = new Uint8Array(16).buffer;
  eq(await endpoint.request("byteLength", lib.transfer([other], [other])), 16, `${where}: transfer() marker`);
  eq(other.byteLength, 0, `${where}: marker moved the buffer`);
  const noted = new Uint8Array(64).buffer;
  endpoint.notify("byteLength", [noted], { transfer: [noted] });
  eq(noted.byteLength, 0, `${where}: a notification's transfer option moved its buffer`);
  const { bytes } = await endpoint.request("bytes", [1000]);
  assert(bytes instanceof Uint8Array && bytes.length === 1000 && bytes[999] === 999 % 251, `${where}: transferred result`);
}

// The browser's own Worker. The test runner replaces `Worker` with one that
// starts a wrapper which imports the script dynamically, once the wrapper
// runs: what is posted meanwhile reaches a worker with no listener at all,
// which a module worker loading its script statically (as users write it)
// never is.
const NativeWorker = Worker.prototype.constructor;

/** Starts the fixture worker; `name` carries its options (e.g. "delay=400"). */
function startWorker(name = "") {
  const worker = new NativeWorker("/tests/browser/worker.js", { type: "module", name });
  worker.addEventListener("error", (event) => console.error(`worker failed: ${event.message}`));
  return worker;
}

function addFrame(attributes) {
  const frame = document.createElement("iframe");
  Object.assign(frame, attributes);
  document.body.appendChild(frame);
  return frame;
}

/** Loads this very test build into a sandboxed (opaque-origin) iframe. */
async function bootSandboxedFrame(body) {
  // One file of glue (no relative imports) and the .wasm's bytes: the frame can fetch neither.
  const glue = await (await fetch("/pkg/wiggum_rpc.js")).text();
  const wasm = await (await fetch("/pkg/wiggum_rpc_bg.wasm")).arrayBuffer();
  const frame = addFrame({ sandbox: "allow-scripts" });
  frame.srcdoc = `<!doctype html><script type="module">
    addEventListener("message", async function boot(event) {
      if (event.source !== parent || event.data?.type !== "boot") return;
      removeEventListener("message", boot);
      try {
      const lib = await import(URL.createObjectURL(new Blob([event.data.glue], { type: "text/javascript" })));
      await lib.default({ module_or_path: event.data.wasm });
      const parentOrigin = event.data.parentOrigin;
      ${body}
      } catch (error) {
        parent.postMessage({ type: "boot-failed", message: String(error && error.stack || error) }, "*");
      }
    });
    parent.postMessage({ type: "booting" }, "*");
  <\/script>`;
  addEventListener("message", function failed(event) {
    if (event.source !== frame.contentWindow || event.data?.type !== "boot-failed") return;
    removeEventListener("message", failed);
    console.error(`sandboxed frame failed to boot: ${event.data.message}`);
  });
  await new Promise((resolve) => {
    addEventListener("message", function booting(event) {
      if (event.source !== frame.contentWindow || event.data?.type !== "booting") return;
      removeEventListener("message", booting);
      frame.contentWindow.postMessage({ type: "boot", glue, wasm, parentOrigin: location.origin }, "*");
      resolve();
    });
  });
  return frame;
}

// ---- scenarios -------------------------------------------------------------

const scenarios = {
  async port_round_trip_results_and_errors() {
    const { client, destroy } = servedPair();
    try {
      eq(await client.request("add", [2, 3]), 5, "sync handler");
      eq(await client.request("addLater", [20, 22]), 42, "async handler");
      eq(await client.request("echo", { named: ["params", 1] }), { named: ["params", 1] }, "named params untouched");
      eq(await client.request("nothing"), null, "undefined result becomes null");
      const results = await Promise.all(Array.from({ length: 200 }, (_, i) => client.request("addLater", [i, i])));
      eq(results, Array.from({ length: 200 }, (_, i) => 2 * i), "200 in flight, each answered correctly");

      const build = await rejects(
        client.request("fail", [lib.ErrorCode.BUILD_FAILED, "Build failed", { diagnostics: [{ line: 3 }] }]),
        -32001, "RPCError thrown by handler");
      eq(build.message, "Build failed", "message");
      eq(build.data, { diagnostics: [{ line: 3 }] }, "data");
      eq(build.name, "RPCError", "name");
      assert(typeof build.stack === "string" && build.stack.length > 0, "has a stack");
      await rejects(client.request("failAsync", [-32002, "Gate failed"]), -32002, "async RPCError");
      eq((await rejects(client.request("throwPlain"), -32603, "plain Error")).message, "plain failure", "plain message");
      eq((await rejects(client.request("throwValue", ["boom"]), -32603, "thrown string")).message, "boom", "string");
      const thrownNumber = await rejects(client.request("throwValue", [42]), -32603, "thrown number");
      eq([thrownNumber.message, thrownNumber.data], ["Internal error", 42], "thrown number");
      await rejects(client.request("throwValue", [null]), -32603, "thrown null");
      for (const name of ["toString", "constructor", "__proto__", "hasOwnProperty", "valueOf", "missing"]) {
        await rejects(client.request(name), -32601, `${name} is not a method`);
      }
      await rejects(client.request("add", 7), -32602, "params must be structured (refused locally)");
      eq(client.pending, 0, "nothing left pending");
    } finally {
      destroy();
    }
  },

  async port_notifications() {
    const { port1, port2 } = new MessageChannel();
    const server = new lib.JSONRPCServer(lib.portTransport(port1));
    const got = [];
    server.onNotify("log", (params) => got.push(params));
    const raw = recorder(port2);
    const client = new lib.JSONRPCClient(lib.portTransport(port2));
    try {
      client.notify("log", { line: 1 });
      client.notify("log", [2]);
      client.notify("nobody-listens", { x: 1 });
      await sleep(100);
      eq(got, [{ line: 1 }, [2]], "notifications delivered in order");
      eq(raw.seen.length, 0, "no reply to any notification");
    } finally {
      client.destroy();
      server.destroy();
    }
  },

  async odd_ids_are_refused_and_thrown_codes_kept() {
    // Ids a structured clone carries but JSON cannot: refused, id null.
    const { server, port, raw, destroy } = rawServer();
    const invalid = { code: -32600, message: "Invalid Request" };
    try {
      for (const id of [NaN, Infinity, -Infinity, 2 ** 60]) {
        port.postMessage({ jsonrpc: "2.0", method: "add", params: [1, 1], id });
        eq(await raw.take(1), [{ jsonrpc: "2.0", error: invalid, id: null }], `id ${id}`);
      }
      // 3,000 odd messages to a server and to a Peer: no reply carries an id JSON cannot.
      const peerChannel = new MessageChannel();
      const peer = new lib.Peer(lib.portTransport(peerChannel.port1));
      fixtures.serveFixtures(peer, lib);
      const peerRaw = recorder(peerChannel.port2);
      const odd = [NaN, Infinity, -Infinity, 2 ** 53 + 2, -0, 0.5, 1e300, "x", null, true, {}, [], undefined];
      let sent = 0;
      for (let i = 0; i < 3000; i++) {
        const id = odd[i % odd.length];
        const message = { jsonrpc: "2.0", method: i % 3 ? "add" : "nothing", params: [i, 1] };
        if (id !== undefined) message.id = id;
        if (i % 7 === 0) message.result = 1;
        (i % 2 ? port : peerChannel.port2).postMessage(i % 11 === 0 ? [message] : message);
        sent++;
      }
      // Until the answers stop coming (a loaded machine takes its time).
      for (let count = -1, waited = 0; waited < 20000; waited += 1000) {
        await sleep(1000);
        const now = raw.seen.length + peerRaw.seen.length;
        if (now === count && now > 0) break;
        count = now;
      }
      const replies = [...raw.seen.splice(0), ...peerRaw.seen.splice(0)].flat();
      assert(replies.length > 1000, `answers came (${replies.length} of ${sent} sent)`);
      const bad = replies.filter((r) => typeof r?.id === "number" && !Number.isSafeInteger(r.id) && !(Number.isFinite(r.id) && r.id % 1 !== 0));
      eq(bad.length, 0, `no reply with an id JSON cannot carry exactly (saw ${JSON.stringify(bad.slice(0, 3))})`);
      peer.destroy();
      peerChannel.port2.close();
    } finally {
      destroy();
    }
    // A thrown value with an integer code keeps it, with its message and data.
    const pair = servedPair();
    try {
      pair.server.method("failsLikeTheReference", () => {
        throw Object.assign(new Error("Build failed"), { code: -32001, data: { file: "a.ts" } });
      });
      pair.server.method("throwsPlain", async () => {
        throw { code: -32004, message: "Task cancelled", data: [1] };
      });
      pair.server.method("throwsPlainError", () => {
        throw new TypeError("bad input");
      });
      const built = await rejects(pair.client.request("failsLikeTheReference"), -32001, "an Error with code");
      eq([built.message, built.data], ["Build failed", { file: "a.ts" }], "its message and data");
      const plain = await rejects(pair.client.request("throwsPlain"), -32004, "a plain object");
      eq([plain.message, plain.data], ["Task cancelled", [1]], "its message and data");
      const other = await rejects(pair.client.request("throwsPlainError"), -32603, "anything else");
      eq(other.message, "bad input", "keeps its message");
    } finally {
      pair.destroy();
    }
  },

  async port_invalid_messages_get_spec_answers() {
    const { port: port2, raw, destroy } = rawServer();
    try {
      const invalid = { code: -32600, message: "Invalid Request" };
      port2.postMessage({ jsonrpc: "2.0", method: 1, params: "bar" });
      eq(await raw.take(1), [{ jsonrpc: "2.0", error: invalid, id: null }], "method not a string");
      port2.postMessage({ jsonrpc: "2.0", method: "add", params: 3, id: 9 });
      eq(await raw.take(1), [{ jsonrpc: "2.0", error: invalid, id: 9 }], "params not structured, id echoed");
      port2.postMessage({ jsonrpc: "2.0", method: "add", id: { bad: 1 } });
      eq(await raw.take(1), [{ jsonrpc: "2.0", error: invalid, id: null }], "object id");
      port2.postMessage({ jsonrpc: "2.0", method: "add", id: true });
      eq(await raw.take(1), [{ jsonrpc: "2.0", error: invalid, id: null }], "boolean id");
      port2.postMessage([]);
      eq(await raw.take(1), [{ jsonrpc: "2.0", error: invalid, id: null }], "empty batch");
      port2.postMessage([1]);
      eq(await raw.take(1), [[{ jsonrpc: "2.0", error: invalid, id: null }]], "batch of one invalid");
      port2.postMessage([
        { jsonrpc: "2.0", method: "add", params: [1, 2], id: "1" },
        { jsonrpc: "2.0", method: "log", params: [7] },
        { jsonrpc: "2.0", method: "addLater", params: [2, 2], id: 1 },
        { foo: "boo" },
        { jsonrpc: "2.0", method: "foo.get", id: "5" },
      ]);
      eq(await raw.take(1), [[
        { jsonrpc: "2.0", result: 3, id: "1" },
        { jsonrpc: "2.0", result: 4, id: 1 },
        { jsonrpc: "2.0", error: invalid, id: null },
        { jsonrpc: "2.0", error: { code: -32601, message: "Method not found" }, id: "5" },
      ]], "mixed batch from a peer that offered nothing: one array once all are done, in request order");
      port2.postMessage([{ jsonrpc: "2.0", method: "log" }]);
      port2.postMessage({ jsonrpc: "2.0", method: "add", params: [1, 1], id: "1" });
      eq(await raw.take(1), [{ jsonrpc: "2.0", result: 2, id: "1" }], "all-notification batch gets nothing");
      port2.postMessage({ jsonrpc: "2.0", method: "add", params: [5, 5], id: 1 });
      port2.postMessage({ jsonrpc: "2.0", method: "add", params: [6, 6], id: "1" });
      const [a, b] = await raw.take(2);
      assert(a.id === 1 && a.result === 10 && b.id === "1" && b.result === 12, "1 and \"1\" are echoed exactly");
    } finally {
      destroy();
    }
  },

  async port_foreign_traffic_is_left_alone() {
    const { port1, port2 } = new MessageChannel();
    const others = [];
    port1.addEventListener("message", (event) => others.push(event.data));
    const server = new lib.JSONRPCServer(lib.portTransport(port1));
    fixtures.serveFixtures(server, lib);
    const raw = recorder(port2);
    try {
      for (const foreign of [{ type: "build" }, "text", 42, null, { jsonrpc: "1.0", id: 1, method: "add" }]) {
        port2.postMessage(foreign);
      }
      port2.postMessage({ jsonrpc: "2.0", method: "add", params: [1, 2], id: 1 });
      eq(await raw.take(1), [{ jsonrpc: "2.0", result: 3, id: 1 }], "only the JSON-RPC request is answered");
      await sleep(50);
      eq(raw.seen.length, 0, "foreign messages get no reply");
      eq(others.length, 6, "other listeners still see every message");
    } finally {
      server.destroy();
      port2.close();
    }
  },

  async peer_both_directions_and_shared_transport() {
    const { port1, port2 } = new MessageChannel();
    const left = new lib.Peer(lib.portTransport(port1));
    const right = new lib.Peer(lib.portTransport(port2));
    try {
      left.method("whoami", () => "left");
      right.method("whoami", () => "right");
      right.method("askLeft", async () => `right asked ${await right.request("whoami")}`);
      const [a, b, c] = await Promise.all([left.request("whoami"), right.request("whoami"), left.request("askLeft")]);
      eq([a, b, c], ["right", "left", "right asked left"], "both directions, nested call inside a handler");
    } finally {
      left.destroy();
      right.destroy();
    }
    // A JSONRPCClient and a JSONRPCServer on one transport, at both ends.
    const channel = new MessageChannel();
    const ends = [lib.portTransport(channel.port1), lib.portTransport(channel.port2)].map((transport, i) => {
      const server = new lib.JSONRPCServer(transport);
      server.method("side", () => i);
      return { server, client: new lib.JSONRPCClient(transport) };
    });
    try {
      eq(await Promise.all([ends[0].client.request("side"), ends[1].client.request("side")]), [1, 0], "shared transport");
    } finally {
      ends.forEach(({ client, server }) => (client.destroy(), server.destroy()));
    }
  },

  async burst_of_calls_goes_out_as_one_batch() {
    // A peer that never answered the handshake (a stranger), one that offered
    // batches, and the caller forcing either way.
    for (const [batch, offered, batched] of [
      [undefined, false, false],
      [undefined, true, true],
      [true, false, true],
      [false, true, false],
    ]) {
      const what = `batch: ${batch}, batches offered: ${offered}`;
      const { port1, port2 } = new MessageChannel();
      const raw = recorder(port1);
      const client = new lib.JSONRPCClient(lib.portTransport(port2), { batch });
      try {
        await raw.hello();
        eq(raw.ready.map(({ params: { presence, ...capabilities } }) => capabilities), [{ ack: false, batches: true, splitBatchAnswers: true, maxBatch: 1000, streamCredit: true, progress: true, packed: true, meta: true }],
          `${what}: the client says hello with its capabilities`);
        assert(/^wiggum-rpc:[0-9a-f-]{36}$/.test(raw.ready[0].params.presence), `${what}: and names the Web Lock it holds while it lives`);
        if (offered) {
          raw.announce({ batches: true });
          await sleep(10);
        }
        const calls = [1, 2, 3, 4, 5].map((n) => client.request("double", [n]));
        client.notify("log", ["after the calls"]);
        if (batched) {
          const [first, rest] = await raw.take(2);
          eq(first, { jsonrpc: "2.0", method: "double", params: [1], id: 1 }, `${what}: the first call goes out at once, alone`);
          eq(rest.map((m) => m.id ?? m.method), [2, 3, 4, 5, "log"], `${what}: the rest of the turn is one batch, in order`);
        } else {
          const sent = await raw.take(6);
          assert(!sent.some(Array.isArray), `${what}: no arrays`);
          eq(sent.map((m) => m.id ?? m.method), [1, 2, 3, 4, 5, "log"], `${what}: one message per call, in order`);
        }
        await sleep(30);
        eq(raw.seen.length, 0, `${what}: nothing else was sent`);
        port1.postMessage([5, 4, 3, 2, 1].map((id) => ({ jsonrpc: "2.0", result: id * 2, id })));
        eq(await Promise.all(calls), [2, 4, 6, 8, 10], `${what}: a batch of responses settles each call`);
        const lone = client.request("double", [21]);
        const [single] = await raw.take(1);
        assert(!Array.isArray(single) && single.id === 6, `${what}: a lone call goes out alone, not as a batch of one`);
        port1.postMessage({ jsonrpc: "2.0", result: 42, id: 6 });
        eq(await lone, 42, `${what}: lone call answered`);
      } finally {
        client.destroy();
        port1.close();
      }
    }
  },

  async a_slow_handler_does_not_hold_back_its_batch() {
    const batch = [
      { jsonrpc: "2.0", method: "wait", params: [300], id: 1 },
      { jsonrpc: "2.0", method: "echoAsync", params: [3], id: 2 },
      { jsonrpc: "2.0", method: "echoAsync", params: [7], id: 3 },
      { jsonrpc: "2.0", method: "add", params: [5, 6], id: 4 },
    ];
    // Toward a peer that offered split answers: each as it settles.
    {
      const { port: port2, raw, destroy } = rawServer();
      try {
        raw.announce({ batches: true, splitBatchAnswers: true });
        await sleep(10);
        const started = performance.now();
        port2.postMessage(batch);
        const [soon] = await raw.take(1);
        eq(soon, [
          { jsonrpc: "2.0", result: 3, id: 2 },
          { jsonrpc: "2.0", result: 7, id: 3 },
          { jsonrpc: "2.0", result: 11, id: 4 },
        ], "what settles in the batch's own turn leaves together at its end, in request order");
        assert(performance.now() - started < 250, "neither waited for the slow call");
        const [late] = await raw.take(1);
        eq(late, [{ jsonrpc: "2.0", result: 300, id: 1 }], "the slow answer last, still an array");
      } finally {
        destroy();
      }
    }
    // Toward any other peer, as the spec says: one array once all are done.
    {
      const { port: port2, raw, destroy } = rawServer();
      try {
        port2.postMessage(batch);
        const [whole] = await raw.take(1, 3000);
        eq(whole, [
          { jsonrpc: "2.0", result: 300, id: 1 },
          { jsonrpc: "2.0", result: 3, id: 2 },
          { jsonrpc: "2.0", result: 7, id: 3 },
          { jsonrpc: "2.0", result: 11, id: 4 },
        ], "one array, in request order, after the slow call");
        await sleep(30);
        eq(raw.seen.length, 0, "nothing else");
      } finally {
        destroy();
      }
    }
  },

  // ---- the seed's reference implementation on the other side ----

  async reference_server_on_a_port_answers_several_calls_per_turn() {
    const { port1, port2 } = new MessageChannel();
    const server = new reference.JSONRPCServer(reference.portTransport(port1));
    reference.serveReference(server);
    // Default options: the reference never answers `$/ready`, so it is a stranger.
    const peer = new lib.Peer(lib.portTransport(port2), { timeout: 3000 });
    try {
      for (let turn = 0; turn < 2; turn++) {
        const calls = [[1, 2], [3, 4], [5, 6]].map((p) => peer.request("add", p));
        calls.push(peer.request("addLater", [7, 8]));
        peer.notify("ignored", []);
        eq(await within(5000, Promise.all(calls), "reference answers"), [3, 7, 11, 15], `turn ${turn}: every call answered`);
      }
      await rejects(peer.request("missing"), -32601, "its own errors arrive");
    } finally {
      peer.destroy();
      server.destroy();
    }
  },

  async reference_client_on_a_port_calls_our_server() {
    const { port1, port2 } = new MessageChannel();
    const server = new lib.JSONRPCServer(lib.portTransport(port1));
    fixtures.serveFixtures(server, lib);
    const client = new reference.JSONRPCClient(reference.portTransport(port2), { timeout: 3000 });
    try {
      const calls = [client.request("add", [1, 2]), client.request("echoAsync", [5]), client.request("add", [3, 4])];
      eq(await Promise.all(calls), [3, 5, 7], "several calls in one turn, each answered alone");
      let error;
      await client.request("nope", []).catch((e) => (error = e));
      eq(error?.code, -32601, "method not found reaches the reference client");
    } finally {
      client.destroy();
      server.destroy();
    }
  },

  async reference_worker_both_directions() {
    // Our client toward a reference worker, with no option: answered at once,
    // whether it calls before the stranger's script has run or after.
    const referenceWorker = async (wait) => {
      const worker = new NativeWorker("/tests/browser/reference-worker.js", { type: "module" });
      // The test server wraps worker scripts in a loader: wait until the reference listens.
      if (wait) await within(10000, new Promise((resolve) =>
        worker.addEventListener("message", (e) => e.data?.referenceWorkerReady && resolve())), "reference worker");
      return worker;
    };
    for (const [wait, options] of [[true, undefined], [false, undefined], [true, { handshake: false }]]) {
      const stranger = await referenceWorker(wait);
      const client = new lib.JSONRPCClient(lib.workerTransport(stranger, options), { timeout: 2000 });
      try {
        const calls = [[1, 2], [3, 4], [5, 6]].map((p) => client.request("add", p));
        eq(await within(5000, Promise.all(calls), "reference worker"), [3, 7, 11],
          `several calls per turn (${wait ? "loaded" : "still loading"}, ${JSON.stringify(options)})`);
      } finally {
        client.destroy();
        stranger.terminate();
      }
    }
    // The reference client toward our worker, once ours listens (it says hello).
    const ours = startWorker();
    const hello = new Promise((resolve) => ours.addEventListener("message", (e) => e.data?.method === "$/ready" && resolve()));
    const referenceClient = new reference.JSONRPCClient(reference.workerTransport(ours), { timeout: 3000 });
    try {
      await within(10000, hello, "our worker's hello");
      const calls = [referenceClient.request("add", [1, 2]), referenceClient.request("addLater", [3, 4]), referenceClient.request("add", [5, 6])];
      eq(await within(5000, Promise.all(calls), "our worker"), [3, 7, 11], "each answered alone, in its own message");
    } finally {
      referenceClient.destroy();
      ours.terminate();
    }
  },

  async reference_frame_both_directions() {
    // A stranger frame, with no option: already loaded, or still loading
    // when the calls are made (they wait for its load, never for a hello).
    for (const loaded of [true, false]) {
      const frame = addFrame({ src: "/tests/browser/reference-frame.html" });
      if (loaded) {
        await within(10000, new Promise((resolve) => {
          const listener = (event) => {
            if (event.source === frame.contentWindow && event.data?.referenceFrameReady) {
              window.removeEventListener("message", listener);
              resolve();
            }
          };
          window.addEventListener("message", listener);
        }), "reference frame");
      }
      const peer = new lib.Peer(lib.windowTransport(frame.contentWindow, window, location.origin), { timeout: 3000 });
      peer.method("add", ([a, b]) => a + b);
      try {
        const calls = [[1, 2], [3, 4], [5, 6]].map((p) => peer.request("add", p));
        eq(await within(5000, Promise.all(calls), "reference frame server"), [3, 7, 11],
          `our calls, several per turn (${loaded ? "loaded" : "loading"})`);
        eq(await within(5000, peer.request("callParent"), "reference frame client"), [3, 7, 11],
          "its three calls in one turn to our server, each answered");
      } finally {
        peer.destroy();
        frame.remove();
      }
    }
    // A frame that navigates while calls are held: they go to the document that loads.
    const frame = addFrame({ src: "/tests/browser/frame.html?first" });
    const peer = new lib.Peer(lib.windowTransport(frame.contentWindow, window, location.origin), { timeout: 5000 });
    frame.src = "/tests/browser/reference-frame.html";
    try {
      eq(await within(8000, peer.request("add", [20, 22]), "after navigating"), 42, "answered by the frame that loaded");
    } finally {
      peer.destroy();
      frame.remove();
    }
  },

  async server_batch_policy() {
    for (const [batches, expected] of [
      ["reject", { jsonrpc: "2.0", error: { code: -32600, message: "Batch requests not supported" }, id: null }],
      [1, { jsonrpc: "2.0", error: { code: -32600, message: "Batch too large" }, id: null }],
      [2, [{ jsonrpc: "2.0", result: 2, id: 1 }, { jsonrpc: "2.0", result: 4, id: 2 }]],
    ]) {
      const { port, raw, destroy } = rawServer({ batches });
      port.postMessage([1, 2].map((n) => ({ jsonrpc: "2.0", method: "add", params: [n, n], id: n })));
      eq(await raw.take(1), [expected], `batches: ${batches}`);
      destroy();
    }
  },

  async timeouts() {
    const { client, destroy } = servedPair({ timeout: 100 });
    try {
      const started = performance.now();
      const error = await rejects(client.request("never"), lib.ErrorCode.REQUEST_TIMEOUT, "default timeout");
      const took = performance.now() - started;
      assert(took >= 95 && took < 2000, `timed out after ${took} ms`);
      assert(error.message.includes("never"), "message names the method");
      await rejects(client.request("never", [], { timeout: 20 }), -32099, "per-call timeout");
      eq(await client.request("wait", [150], { timeout: 2000 }), 150, "per-call timeout can be longer");
      await rejects(client.request("wait", [200], { timeout: 50 }), -32099, "late answer");
      await sleep(250);
      eq(await client.request("add", [1, 1]), 2, "a late answer to a timed-out call breaks nothing");
      eq(await client.request("wait", [50], { timeout: 0 }), 50, "timeout 0 means none");
      // Timeouts of a second or more run on the coarse clock: never early,
      // at most a tick (100 ms) and timer lateness after. Two calls, one
      // starting while the clock already ticks for the other.
      const coarseStart = performance.now();
      const first = rejects(client.request("never", [], { timeout: 1000 }), -32099, "coarse timeout");
      await sleep(60);
      const secondStart = performance.now();
      const second = rejects(client.request("never", [], { timeout: 1000 }), -32099, "coarse timeout, later call");
      await first;
      const firstTook = performance.now() - coarseStart;
      await second;
      const secondTook = performance.now() - secondStart;
      assert(firstTook >= 1000 && firstTook < 1800, `a 1 s timeout ended after ${firstTook} ms`);
      assert(secondTook >= 1000 && secondTook < 1800, `a 1 s timeout made mid-tick ended after ${secondTook} ms`);
      eq(client.pending, 0, "timed-out calls leave the table");
    } finally {
      destroy();
    }
  },

  async destroy_rejects_pending_and_removes_listeners() {
    const { client, server, destroy } = servedPair();
    const calls = [client.request("never"), client.request("never"), client.request("wait", [10000])];
    await sleep(20);
    eq(client.pending, 3, "three pending");
    client.destroy();
    for (const call of calls) await rejects(call, lib.ErrorCode.DESTROYED, "pending call on destroy");
    eq(client.pending, 0, "table empty");
    await rejects(client.request("add", [1, 2]), -32098, "request after destroy");
    server.destroy();
    destroy();

    // destroy() hands back exactly the listener it added, and destroys the transport.
    const log = [];
    const transport = {
      send() {},
      onMessage(handler) { log.push(["on", handler]); },
      offMessage(handler) { log.push(["off", handler]); },
      destroy() { log.push(["destroy"]); },
    };
    new lib.Peer(transport).destroy();
    eq(log.map(([what]) => what), ["on", "off", "destroy"], "listener added, removed, transport destroyed");
    assert(log[0][1] === log[1][1], "the same handler is removed");

    // portTransport owns its port: destroy() closes it.
    const channel = new MessageChannel();
    let closed = false;
    const close = channel.port1.close.bind(channel.port1);
    channel.port1.close = () => {
      closed = true;
      close();
    };
    new lib.JSONRPCClient(lib.portTransport(channel.port1)).destroy();
    assert(closed, "destroy() closed the port");

    // A destroyed postMessage transport no longer listens.
    const window_ = lib.windowTransport(window, window, undefined, { handshake: false });
    const got = [];
    window_.onMessage((message) => got.push(message));
    window.postMessage({ jsonrpc: "2.0", method: "ping" }, "*");
    await sleep(50);
    eq(got.length, 1, "listening before destroy");
    window_.destroy();
    window.postMessage({ jsonrpc: "2.0", method: "ping" }, "*");
    await sleep(50);
    eq(got.length, 1, "not listening after destroy");
  },

  async a_schema_checks_params_in_the_browser() {
    // A hand-written Standard Schema that answers asynchronously, as some do.
    const positive = { "~standard": { version: 1, vendor: "test", validate: async (value) =>
      (Array.isArray(value) && value.every((n) => n > 0) ? { value: value.map(Number) } : { issues: [{ message: "positive numbers", path: [0] }] }) } };
    const { port1, port2 } = new MessageChannel();
    const traced = [];
    const server = new lib.Peer(lib.portTransport(port1), { trace: (record) => traced.push(record) });
    const client = new lib.Peer(lib.portTransport(port2));
    let ran = 0;
    server.method("sum", (numbers) => (ran++, numbers.reduce((a, b) => a + b, 0)), { params: positive });
    try {
      eq(await client.request("sum", [1, 2, 3]), 6, "valid params reach the handler");
      const error = await client.request("sum", [-1]).then(() => undefined, (thrown) => thrown);
      eq([error.code, error.message, error.data], [-32602, "Invalid params", [{ message: "positive numbers", path: [0] }]],
        "invalid params are -32602 with the issues");
      eq(ran, 1, "the handler ran once");
      eq(traced.filter((record) => record.event === "invalid-params").length, 1, "the server traced the verdict");
    } finally {
      client.destroy();
      server.destroy();
    }
  },

  async introspection_lists_and_describes_methods() {
    const first = new MessageChannel();
    const server = new lib.JSONRPCServer(lib.portTransport(first.port1));
    server.method("add", ([a, b]) => a + b,
      { description: "Adds two numbers", params: ["a: number", "b: number"], returns: "number" });
    server.method("echo", (params) => params);
    server.onNotify("log", () => {});
    const client = new lib.JSONRPCClient(lib.portTransport(first.port2));
    const second = new MessageChannel();
    const quiet = new lib.JSONRPCServer(lib.portTransport(second.port1), { introspection: false });
    quiet.method("add", ([a, b]) => a + b);
    const asker = new lib.JSONRPCClient(lib.portTransport(second.port2));
    try {
      const listed = await client.request("listMethods");
      eq(listed.map((m) => m.name), ["listMethods", "describeMethods", "rpc.discover", "add", "echo"],
        "every method, in order");
      eq(listed[3], { name: "add", description: "Adds two numbers" }, "a described method");
      eq(listed[4], { name: "echo", description: "" }, "an undescribed one");
      const described = await client.request("describeMethods");
      eq(described[3], { name: "add", params: ["a: number", "b: number"], returns: "number" }, "its signature");
      eq(described[4], { name: "echo", params: [], returns: "unknown" }, "no signature given");
      const document = await client.request("rpc.discover");
      eq([document.openrpc, document.methods.map((m) => m.name).join()], ["1.3.2", listed.map((m) => m.name).join()],
        "rpc.discover lists the same methods");
      await rejects(asker.request("listMethods"), -32601, "introspection: false");
      await rejects(asker.request("rpc.discover"), -32601, "introspection: false");
      eq(await asker.request("add", [1, 2]), 3, "the quiet server still serves");
    } finally {
      for (const endpoint of [client, server, asker, quiet]) endpoint.destroy();
    }
  },

  async remote_proxy_and_exposed_objects() {
    class Store {
      constructor() {
        this.files = { "/a.txt": "A" };
      }
      read(path) {
        return this.files[path] ?? null;
      }
      _secret() {
        return "hidden";
      }
    }
    class Repo extends Store {
      get_file_tree() {
        return Object.keys(this.files);
      }
      async write({ path, text }) {
        this.files[path] = text;
        return true;
      }
    }
    const { port1, port2 } = new MessageChannel();
    const server = new lib.Peer(lib.portTransport(port1));
    server.expose(new Repo(), "Repo");
    server.method("add", ([a, b]) => a + b);
    const client = new lib.Peer(lib.portTransport(port2));
    const remote = client.remote();
    try {
      eq(await remote.add(2, 3), 5, "remote.add(2, 3) sends add with [2, 3]");
      eq(await remote.Repo.get_file_tree(), ["/a.txt"], "a nested name: Repo.get_file_tree");
      eq(await remote.Repo.read("/a.txt"), "A", "an inherited method, positional params spread");
      eq(await client.request("Repo.write", { path: "/b.txt", text: "B" }), true, "named params as one object");
      eq(await remote.Repo.read("/b.txt"), "B", "the instance keeps its state");
      for (const hidden of ["Repo._secret", "Repo.constructor", "Repo.files", "Repo.toString", "Repo.hasOwnProperty"]) {
        await rejects(client.request(hidden), -32601, `${hidden} is not exposed`);
      }
      assert((await remote) === remote, "the proxy is not thenable");
    } finally {
      client.destroy();
      server.destroy();
    }
  },

  async streamed_results_chunks_then_answer() {
    const { port1, port2 } = new MessageChannel();
    const server = new lib.Peer(lib.portTransport(port1));
    const client = new lib.Peer(lib.portTransport(port2));
    let produced = 0;
    let stopped = null;
    server.method("count", async ([from, n], { emit }) => {
      for (let i = 0; i < n; i++) {
        emit({ n: from + i });
        if (i % 2) await sleep(1);
      }
      return `counted ${n}`;
    });
    server.method("forever", async (_, { emit, signal }) => {
      while (!signal.aborted) {
        emit(++produced);
        await sleep(10);
      }
      stopped = signal.reason.code;
      throw signal.reason;
    });
    server.method("late", (_, { emit }) => {
      setTimeout(() => emit("after the answer"), 0);
      return "answered";
    });
    try {
      // Two streamed calls at once: each gets its own chunks, in order.
      const a = [];
      const b = [];
      const [ra, rb] = await Promise.all([
        client.request("count", [0, 5], { onChunk: (c) => a.push(c.n) }),
        client.request("count", [100, 3], { onChunk: (c) => b.push(c.n) }),
      ]);
      eq([ra, a], ["counted 5", [0, 1, 2, 3, 4]], "first call: its chunks, then its result");
      eq([rb, b], ["counted 3", [100, 101, 102]], "second call: only its own chunks");
      // The async iterator, with the result beside it.
      const stream = client.stream("count", [7, 4]);
      const seen = [];
      for await (const chunk of stream) seen.push(chunk.n);
      eq([seen, await stream.result], [[7, 8, 9, 10], "counted 4"], "for await, then .result");
      // The caller's own signal: listened to while the call runs, no longer after.
      const outer = new AbortController();
      const listeners = { added: 0, removed: 0 };
      const { addEventListener, removeEventListener } = outer.signal;
      outer.signal.addEventListener = function (...args) {
        listeners.added++;
        return addEventListener.apply(this, args);
      };
      outer.signal.removeEventListener = function (...args) {
        listeners.removed++;
        return removeEventListener.apply(this, args);
      };
      const watched = client.stream("count", [0, 2], { signal: outer.signal });
      for await (const _ of watched) {
        // Drained.
      }
      eq([await watched.result, listeners], ["counted 2", { added: 1, removed: 1 }], "the caller's signal let go");
      // Leaving the loop early cancels the call and stops its producer.
      const endless = client.stream("forever");
      const taken = [];
      for await (const chunk of endless) {
        taken.push(chunk);
        if (taken.length === 3) break;
      }
      eq(taken, [1, 2, 3], "the first three chunks");
      await rejects(endless.result, lib.ErrorCode.REQUEST_CANCELLED, "a stream left early");
      await sleep(50);
      eq(stopped, lib.ErrorCode.REQUEST_CANCELLED, "the producer's signal fired");
      const final = produced;
      await sleep(60);
      eq(produced, final, "the producer stopped");
      // cancel() does the same without a loop.
      const cancelled = client.stream("forever");
      cancelled.cancel();
      await rejects(cancelled.result, lib.ErrorCode.REQUEST_CANCELLED, "stream.cancel()");
      // A chunk after the answer belongs to no call: dropped, nothing breaks.
      const late = [];
      eq(await client.request("late", [], { onChunk: (c) => late.push(c) }), "answered", "answered");
      await sleep(20);
      eq(late, [], "no chunk after the answer");
      eq(await client.request("count", [1, 1]), "counted 1", "a streamed call without onChunk still resolves");
    } finally {
      client.destroy();
      server.destroy();
    }
  },

  async streamed_results_on_the_wire() {
    const { port1, port2 } = new MessageChannel();
    const server = new lib.JSONRPCServer(lib.portTransport(port1));
    server.method("lines", (_, { emit }) => {
      emit("a");
      emit("b");
      return 2;
    });
    const raw = recorder(port2);
    try {
      port2.postMessage({ jsonrpc: "2.0", method: "lines", id: "s1" });
      const flat = [];
      while (flat.length < 4) flat.push(...[].concat(...(await raw.take(1))));
      eq(flat, [
        { jsonrpc: "2.0", method: "stream.chunk", params: { id: "s1", chunk: "a" } },
        { jsonrpc: "2.0", method: "stream.chunk", params: { id: "s1", chunk: "b" } },
        { jsonrpc: "2.0", method: "stream.end", params: { id: "s1" } },
        { jsonrpc: "2.0", result: 2, id: "s1" },
      ], "chunks, stream.end, then the response, in that order");
    } finally {
      server.destroy();
      port2.close();
    }
  },

  async handler_signal_fires_on_cancel_and_destroy() {
    const { port1, port2 } = new MessageChannel();
    const server = new lib.JSONRPCServer(lib.portTransport(port1));
    const client = new lib.JSONRPCClient(lib.portTransport(port2));
    try {
      // The server side: a handler that takes `{ signal }` sees the cancellation.
      const seen = [];
      server.method("cancellable", (params, { signal }) => new Promise((resolve, reject) => {
        signal.addEventListener("abort", () => {
          seen.push(signal.reason.code);
          reject(signal.reason);
        });
      }));
      server.method("arity", function () {
        return arguments.length;
      });
      eq(await client.request("arity", []), 1, "a handler without a second parameter gets none");
      const stop = new AbortController();
      const cancellable = client.request("cancellable", [], { signal: stop.signal });
      await sleep(20);
      stop.abort();
      await rejects(cancellable, lib.ErrorCode.REQUEST_CANCELLED, "cancelled call");
      await sleep(50);
      eq(seen, [lib.ErrorCode.REQUEST_CANCELLED], "the handler's signal fired with REQUEST_CANCELLED");
      const orphan = client.request("cancellable", [], { timeout: 0 });
      await sleep(20);
      server.destroy();
      await sleep(20);
      eq(seen, [lib.ErrorCode.REQUEST_CANCELLED, lib.ErrorCode.DESTROYED], "destroy aborts running handlers");
      // The server's end frees the lock it held: the client notices, and fails the call at once.
      await rejects(orphan, lib.ErrorCode.CONNECTION_CLOSED, "the orphaned call ends when its server has gone");
    } finally {
      client.destroy();
      server.destroy();
    }
  },

  async abort() {
    const { port1, port2 } = new MessageChannel();
    const server = new lib.JSONRPCServer(lib.portTransport(port1));
    fixtures.serveFixtures(server, lib);
    const cancelled = [];
    server.onNotify("$/cancelRequest", (params) => cancelled.push(params));
    const client = new lib.JSONRPCClient(lib.portTransport(port2));
    try {
      const controller = new AbortController();
      const call = client.request("never", [], { signal: controller.signal });
      await sleep(10);
      const started = performance.now();
      controller.abort("user changed their mind");
      const error = await rejects(call, lib.ErrorCode.REQUEST_CANCELLED, "aborted call");
      assert(performance.now() - started < 50, "rejects at once");
      eq(error.data, "user changed their mind", "abort reason as data");
      await sleep(50);
      eq(cancelled, [{ id: 1 }], "$/cancelRequest sent with the call's id");

      await rejects(client.request("add", [1, 2], { signal: AbortSignal.abort() }), -32800, "already aborted");
      const done = new AbortController();
      eq(await client.request("add", [1, 2], { signal: done.signal }), 3, "signal that never fires");
      done.abort();
      await sleep(20);
      eq(cancelled.length, 1, "aborting after the answer sends nothing");
      eq(client.pending, 0, "nothing pending");
    } finally {
      client.destroy();
      server.destroy();
    }
  },

  async port_structured_clone_passthrough_and_transfer() {
    const { client, server, destroy } = servedPair();
    try {
      await checkPassthrough(client, "port");
      await checkTransfer(client, "port");
      let kept;
      server.method("keep", () => {
        kept = new Uint8Array(64).buffer;
        return lib.transfer(kept, [kept]);
      });
      const result = await client.request("keep");
      assert(result instanceof ArrayBuffer && result.byteLength === 64, "result arrives");
      eq(kept.byteLength, 0, "the handler's buffer was moved, not copied");
    } finally {
      destroy();
    }
  },

  async uncloneable_result_fails_that_call_only() {
    const { client, server, destroy } = servedPair();
    try {
      const error = await rejects(client.request("uncloneable"), -32603, "uncloneable result");
      assert(/could not be sent/.test(error.message), `message says why: ${error.message}`);
      eq(await client.request("add", [2, 2]), 4, "the server keeps serving");
      server.method("detached", () => {
        const buffer = new ArrayBuffer(8);
        structuredClone(buffer, { transfer: [buffer] });
        return lib.transfer(buffer, [buffer]);
      });
      await rejects(client.request("detached"), -32603, "a detached buffer in the result's transfer list");
      // The first call goes alone, the next two as one batch answered by one array.
      const [, culprit, fine] = await Promise.allSettled(
        [client.request("add", [0, 0]), client.request("uncloneable"), client.request("add", [1, 1])]);
      eq([culprit.status, culprit.reason?.code, fine.value], ["rejected", -32603, 2], "in a batch, only the culprit fails");
      const sent = await rejects(client.request("echo", [() => 1]), lib.ErrorCode.SEND_FAILED, "uncloneable params");
      assert(/DataCloneError/.test(sent.message), `names the DataCloneError: ${sent.message}`);
      eq(client.pending, 0, "the failed send left nothing pending");
    } finally {
      destroy();
    }
  },

  async text_transport_gets_json_text() {
    const { port1, port2 } = new MessageChannel();
    const text = (port) => ({
      text: true,
      send(message) { port.postMessage(message); },
      onMessage(handler) { port.onmessage = (event) => handler(event.data); },
      destroy() { port.close(); },
    });
    const server = new lib.JSONRPCServer(text(port1));
    fixtures.serveFixtures(server, lib);
    const raw = recorder(port2);
    try {
      port2.postMessage('{"jsonrpc": "2.0", "method": "foobar, "params": "bar", "baz]');
      const [parseError] = await raw.take(1);
      eq(typeof parseError, "string", "answer is JSON text");
      eq(JSON.parse(parseError), { jsonrpc: "2.0", error: { code: -32700, message: "Parse error" }, id: null }, "-32700");
      for (const [input, expected] of [
        ['"just a string"', { jsonrpc: "2.0", error: { code: -32600, message: "Invalid Request" }, id: null }],
        ["null", { jsonrpc: "2.0", error: { code: -32600, message: "Invalid Request" }, id: null }],
        ['{"id":1}', { jsonrpc: "2.0", error: { code: -32600, message: "Invalid Request" }, id: 1 }],
        ['{"jsonrpc":"2.1","method":"add","params":[1,2],"id":2}',
          { jsonrpc: "2.0", error: { code: -32600, message: "Invalid Request" }, id: 2 }],
        ['{"jsonrpc":"2.0","method":"add","params":[1,2],"id":"x"}', { jsonrpc: "2.0", result: 3, id: "x" }],
      ]) {
        port2.postMessage(input);
        eq(JSON.parse((await raw.take(1))[0]), expected, input);
      }
      port2.close();
      const channel = new MessageChannel();
      const textServer = new lib.JSONRPCServer(text(channel.port1));
      fixtures.serveFixtures(textServer, lib);
      const client = new lib.JSONRPCClient(text(channel.port2));
      eq(await client.request("add", [40, 2]), 42, "text client ↔ text server");
      client.destroy();
      textServer.destroy();
    } finally {
      server.destroy();
    }
  },

  async worker_round_trip_passthrough_transfer() {
    const worker = startWorker();
    const peer = new lib.Peer(lib.workerTransport(worker));
    try {
      peer.method("add", ([a, b]) => a + b);
      eq(await within(10000, peer.request("whereAmI"), "worker"), "worker", "served inside the worker");
      eq(await peer.request("addLater", [1, 2]), 3, "async handler in the worker");
      eq(await peer.request("askMain", [20, 22]), 42, "the worker calls back the main thread");
      await rejects(peer.request("fail", [-32001, "Build failed", ["e1"]]), -32001, "worker RPCError");
      await checkPassthrough(peer, "worker");
      await checkTransfer(peer, "worker");
      const error = await rejects(peer.request("uncloneable"), -32603, "uncloneable result in the worker");
      assert(/could not be sent/.test(error.message), "says why");
      eq(await peer.request("add", [1, 1]), 2, "the worker keeps serving");
    } finally {
      peer.destroy();
      worker.terminate();
    }
  },

  async progress_keeps_a_long_call_alive() {
    const worker = startWorker();
    const peer = new lib.Peer(lib.workerTransport(worker));
    try {
      eq(await within(10000, peer.request("whereAmI"), "worker"), "worker", "the worker serves");
      // Two builds at once, each 8 × 100 ms, past their 300 ms timeout: each hears its own progress.
      const heard = { a: [], b: [] };
      const started = performance.now();
      const [a, b] = await Promise.all(["a", "b"].map((tag) =>
        peer.request("buildWithProgress", [8, 100, tag], { timeout: 300, onProgress: (value) => heard[tag].push(value) })));
      const took = performance.now() - started;
      eq([a, b], ["built a", "built b"], "answered, kept alive by progress");
      assert(took >= 800, `the builds took ${took} ms`);
      for (const tag of ["a", "b"]) {
        eq(heard[tag], [1, 2, 3, 4, 5, 6, 7, 8].map((step) => ({ step, of: 8, tag })), `build ${tag}: its own progress, in order`);
      }
      // Without the reset, progress is only news: the timeout ends it.
      const news = [];
      await rejects(peer.request("buildWithProgress", [8, 100], { timeout: 300, resetTimeoutOnProgress: false, onProgress: (v) => news.push(v) }),
        lib.ErrorCode.REQUEST_TIMEOUT, "no reset");
      assert(news.length >= 1 && news.length <= 3, `heard ${news.length} before the timeout`);
      // The total cap ends a call that never finishes, however alive it looks.
      const capStart = performance.now();
      await rejects(peer.request("endlessProgress", [50], { timeout: 300, maxTotalTimeout: 700 }), lib.ErrorCode.REQUEST_TIMEOUT, "capped");
      const capped = performance.now() - capStart;
      assert(capped >= 695 && capped < 1500, `the cap ended it after ${capped} ms`);
      // A flood: 10,000 progress reports at once. The page stays responsive (a 5 ms
      // timer is never held up for long) and the last is seen.
      let last;
      let count = 0;
      let previous = performance.now();
      let longestGap = 0;
      const ticking = setInterval(() => {
        const now = performance.now();
        longestGap = Math.max(longestGap, now - previous);
        previous = now;
      }, 5);
      const flood = peer.request("progressFlood", [10000], { onProgress: (v) => { count++; last = v; } });
      eq(await flood, "flooded", "flood answered");
      await sleep(20);
      clearInterval(ticking);
      eq([count, last], [10000, 10000], "every progress, the last last");
      assert(longestGap < 500, `the page's timers waited ${Math.round(longestGap)} ms at most during the flood`);
      eq(peer.pending, 0, "nothing left waiting");
    } finally {
      peer.destroy();
      worker.terminate();
    }
  },

  async errors_arrive_whole() {
    const worker = startWorker();
    const peer = new lib.Peer(lib.workerTransport(worker));
    try {
      eq(await within(10000, peer.request("whereAmI"), "worker"), "worker", "the worker serves");
      const error = await rejects(peer.request("throwWhole"), -32603, "a thrown TypeError");
      assert(error instanceof lib.RPCError, "an RPCError");
      eq([error.message, error.data.name, error.file, error.line], ["build failed", "TypeError", "src/App.tsx", 3], "its name and fields");
      assert(error.cause instanceof Error, "its cause, rebuilt");
      eq([error.cause.name, error.cause.message, error.cause.errno], ["RangeError", "disk full", 28], "the cause's name, message and fields");
      eq(error.data, { name: "TypeError", message: "build failed", fields: { file: "src/App.tsx", line: 3 },
        cause: { name: "RangeError", message: "disk full", fields: { errno: 28 } } }, "the documented shape, no function, no stack");
      const aggregate = await rejects(peer.request("throwAggregate"), -32603, "an AggregateError");
      eq(aggregate.errors.map((e) => [e.name, e.message]), [["Error", "first"], ["SyntaxError", "second"]], "its errors");
      await rejects(peer.request("fail", [-32001, "Build failed", { file: "a.ts" }]), -32001, "an explicit code");
      const explicit = await peer.request("fail", [-32001, "Build failed", { file: "a.ts" }]).catch((e) => e);
      eq(explicit.data, { file: "a.ts" }, "an explicit RPCError's data exactly");
      const self = await rejects(peer.request("throwOdd", ["self"]), -32603, "a cause that is itself");
      eq([self.message, self.data.cause], ["odd self", undefined], "the cycle cut");
      const deep = await rejects(peer.request("throwOdd", ["deep"]), -32603, "a 10,000-deep chain");
      let depth = 0;
      for (let cause = deep.cause; cause instanceof Error; cause = cause.cause) depth++;
      assert(depth >= 10 && depth <= 16, `the chain bounded (${depth})`);
      const getter = await rejects(peer.request("throwOdd", ["getter"]), -32603, "a getter that throws");
      eq(getter.message, "odd getter", "answered anyway");
      eq(await peer.request("add", [1, 1]), 2, "the worker keeps serving");
    } finally {
      peer.destroy();
      worker.terminate();
    }
    // On the main thread: a DOM node in a field; a raw port's view (a stranger reads the same data); the stack on request.
    const { server, raw, port, destroy } = rawServer({ exposeStack: true });
    try {
      port.postMessage({ jsonrpc: "2.0", method: "throwWhole", id: 1 });
      port.postMessage({ jsonrpc: "2.0", method: "throwOdd", params: ["node"], id: 2 });
      const [whole, node] = await raw.take(2);
      eq([whole.error.code, whole.error.data.name, whole.error.data.fields, whole.error.data.cause.name],
        [-32603, "TypeError", { file: "src/App.tsx", line: 3 }, "RangeError"], "a stranger reads the same data");
      assert(typeof whole.error.data.stack === "string" && whole.error.data.stack.length > 0, "the stack, when told");
      eq([node.error.message, node.error.data.fields], ["odd node", undefined], "a DOM node is not data");
    } finally {
      destroy();
    }
  },

  async worker_startup_race_loses_nothing() {
    const worker = startWorker("delay=400");
    const transport = lib.workerTransport(worker);
    const client = new lib.JSONRPCClient(transport);
    try {
      const started = performance.now();
      const answers = Promise.all([client.request("add", [1, 2]), client.request("addLater", [3, 4])]);
      client.notify("early-notification");
      eq(await within(10000, answers, "early requests"), [3, 7], "requests sent before the server existed");
      const took = performance.now() - started;
      assert(took >= 390, `answered only once the server was ready (after ${took} ms)`);
    } finally {
      client.destroy();
      worker.terminate();
    }
    // Nothing waits for a hello: the worker keeps what comes before its
    // endpoint exists, so even with the handshake off nothing is lost.
    const loading = startWorker("delay=1000");
    const blind = new lib.JSONRPCClient(lib.workerTransport(loading, { handshake: false }), { timeout: 5000 });
    try {
      const calls = [blind.request("add", [1, 2]), blind.request("add", [2, 2])];
      eq(await within(8000, Promise.all(calls), "sent before the worker listened"), [3, 4], "kept until it listened");
    } finally {
      blind.destroy();
      loading.terminate();
    }
    // Two endpoints on one worker (a server and a client): the early calls reach the server.
    const two = startWorker("delay=300&two=1");
    const early = new lib.Peer(lib.workerTransport(two), { timeout: 5000 });
    early.method("add", ([a, b]) => a + b);
    try {
      eq(await within(8000, Promise.all([early.request("add", [5, 5]), early.request("askMain", [1, 1])]), "two endpoints"),
        [10, 2], "served by the server made second, in the same turn");
    } finally {
      early.destroy();
      two.terminate();
    }
  },

  async iframe_same_origin() {
    const frame = addFrame({ src: "/tests/browser/frame.html" });
    // Created before the iframe has loaded: the handshake holds calls until it listens.
    const peer = new lib.Peer(lib.windowTransport(frame.contentWindow, window, location.origin));
    const states = [];
    peer.onNotify("updateNavigationState", (params) => states.push(params));
    peer.method("fetch", ({ url }) => ({ status: 200, body: `contents of ${url}` }));
    try {
      eq(await within(10000, peer.request("navigate", { path: "/about" }), "navigate"), { route: "/about" }, "navigate");
      const error = await rejects(peer.request("navigate", { path: "about" }), -32006, "mistyped route");
      eq(error.data, { path: "about" }, "NAVIGATION_FAILED data");
      eq(await peer.request("fetchFromParent", { url: "/dist/app.js" }),
        { status: 200, body: "contents of /dist/app.js" }, "the iframe calls its parent");
      eq(await peer.request("whereAmI"), location.origin, "same origin");
      await sleep(20);
      eq(states, [{ path: "/about" }], "notification from the iframe");
      await checkPassthrough(peer, "window");
      await checkTransfer(peer, "window");
    } finally {
      peer.destroy();
      frame.remove();
    }
  },

  async iframe_sandboxed_opaque_origin() {
    const frame = await bootSandboxedFrame(`
      const peer = new lib.Peer(lib.windowTransport(parent, window, parentOrigin));
      peer.method("whereAmI", () => String(self.origin));
      peer.method("echo", (params) => params);
      peer.method("fetchFromParent", ({ url }) => peer.request("fetch", { url }));
    `);
    // The frame loads the library only now, long after its own load (a
    // dynamic import): calls wait for its endpoint's hello.
    const peer = new lib.Peer(lib.windowTransport(frame.contentWindow, window, "null", { handshake: "wait" }));
    peer.method("fetch", ({ url }) => ({ status: 200, body: `sandboxed asked for ${url}` }));
    try {
      eq(await within(10000, peer.request("whereAmI"), "sandboxed frame"), "null", "opaque origin");
      eq(await peer.request("fetchFromParent", { url: "/x" }), { status: 200, body: "sandboxed asked for /x" },
        "calls both ways");
      const [bytes, , map] = await peer.request("echo", samplePayload());
      assert(bytes instanceof Uint8Array && map instanceof Map, "structured clone through the sandbox");
    } finally {
      peer.destroy();
      frame.remove();
    }
  },

  async window_origin_and_source_checks_refuse_others() {
    const frame = addFrame({ src: "/tests/browser/frame.html" });
    const trusted = new lib.Peer(lib.windowTransport(frame.contentWindow, window, location.origin));
    const wrongOrigin = [];
    const pinnedElsewhere = new lib.JSONRPCServer(
      lib.windowTransport(frame.contentWindow, window, "http://127.0.0.1:1", { handshake: false }));
    pinnedElsewhere.onNotify("updateNavigationState", (params) => wrongOrigin.push(params));
    const rightOrigin = [];
    trusted.onNotify("updateNavigationState", (params) => rightOrigin.push(params));
    let forger;
    try {
      eq(await within(10000, trusted.request("navigate", { path: "/a" }), "navigate"), { route: "/a" }, "trusted");
      await sleep(50);
      eq(rightOrigin.length, 1, "the transport pinned to the right origin gets the notification");
      eq(wrongOrigin.length, 0, "the transport pinned to another origin refuses it");

      // Another window forges a response to a pending call: wrong source, refused.
      const seenByWindow = [];
      const spy = (event) => event.data?.result === "forged" && seenByWindow.push(event.data);
      addEventListener("message", spy);
      forger = addFrame({ sandbox: "allow-scripts" });
      const pending = trusted.request("wait", [400]);
      forger.srcdoc = `<script>
        for (let id = 1; id < 10; id++) parent.postMessage({ jsonrpc: "2.0", result: "forged", id }, "*");
      <\/script>`;
      eq(await pending, 400, "the forged response from another window was ignored");
      removeEventListener("message", spy);
      assert(seenByWindow.length === 9, `the forgery did reach the window (${seenByWindow.length})`);
    } finally {
      trusted.destroy();
      pinnedElsewhere.destroy();
      frame.remove();
      forger?.remove();
    }
  },
};
