// The Node build against a JSON-RPC library nobody here wrote: json-rpc-2.0
// (npm) over Node's MessageChannel, both directions, with a spy on what each
// side really receives. It never answers `$/ready`, so to wiggum-rpc it is a
// stranger: one message per call, one array per batch it sends; and what it
// gets from a schema-checked method (-32602 with the issues) and rpc.discover.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { JSONRPCClient, JSONRPCServer, JSONRPCServerAndClient } from "json-rpc-2.0";

const require = createRequire(import.meta.url);
const lib = require("../../pkg/node/wiggum_rpc.cjs");
require("../../pkg/node/contracts.cjs");
require("../../pkg/node/introspection.cjs");

/** json-rpc-2.0 on one port, recording every message it is handed. */
function stranger(port) {
  const received = [];
  const peer = new JSONRPCServerAndClient(
    new JSONRPCServer(),
    new JSONRPCClient((payload) => port.postMessage(payload)),
  );
  peer.addMethod("add", ([a, b]) => a + b);
  port.on("message", (message) => {
    received.push(message);
    peer.receiveAndSend(message).catch(() => {});
  });
  return { peer, received };
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

test("calls to json-rpc-2.0 go one message each, in order, and are all answered", async () => {
  const { port1, port2 } = new MessageChannel();
  const other = stranger(port1);
  const ours = new lib.Peer(lib.portTransport(port2), { timeout: 3000 });
  try {
    await sleep(20);
    const calls = [[1, 2], [3, 4], [5, 6], [7, 8]].map((p) => ours.request("add", p));
    ours.notify("add", [0, 0]);
    assert.deepEqual(await Promise.all(calls), [3, 7, 11, 15]);
    const calls2 = [[1, 1], [2, 2]].map((p) => ours.request("add", p));
    assert.deepEqual(await Promise.all(calls2), [2, 4]);
    assert.ok(!other.received.some(Array.isArray), "no batch array toward a peer that offered none");
    const requests = other.received.filter((m) => m.method === "add");
    assert.deepEqual(requests.map((m) => m.params), [[1, 2], [3, 4], [5, 6], [7, 8], [0, 0], [1, 1], [2, 2]], "in order");
    assert.equal(other.received[0].method, "$/ready", "the hello, which it ignores as an unknown notification");
  } finally {
    ours.destroy();
    port1.close();
  }
});

test("a batch from json-rpc-2.0 with an async member is answered with one array", async () => {
  const { port1, port2 } = new MessageChannel();
  const other = stranger(port1);
  const ours = new lib.Peer(lib.portTransport(port2));
  ours.method("add", ([a, b]) => a + b);
  ours.method("slowAdd", async ([a, b]) => {
    await sleep(100);
    return a + b;
  });
  try {
    const answers = await other.peer.client.requestAdvanced([
      { jsonrpc: "2.0", method: "slowAdd", params: [1, 2], id: 1 },
      { jsonrpc: "2.0", method: "add", params: [3, 4], id: 2 },
      { jsonrpc: "2.0", method: "nope", id: 3 },
    ]);
    assert.deepEqual(answers.map((a) => a.result ?? a.error.code), [3, 7, -32601]);
    const arrays = other.received.filter(Array.isArray);
    assert.equal(arrays.length, 1, "one array, after the slow member");
    assert.deepEqual(arrays[0].map((r) => r.id), [1, 2, 3], "in request order");
  } finally {
    ours.destroy();
    port1.close();
  }
});

test("batch: true sends json-rpc-2.0 a batch it answers", async () => {
  const { port1, port2 } = new MessageChannel();
  const other = stranger(port1);
  const ours = new lib.Peer(lib.portTransport(port2), { batch: true, timeout: 3000 });
  try {
    const calls = [[1, 2], [3, 4], [5, 6]].map((p) => ours.request("add", p));
    assert.deepEqual(await Promise.all(calls), [3, 7, 11]);
    const arrays = other.received.filter(Array.isArray);
    assert.equal(arrays.length, 1, "the first call alone, the rest of the turn as one batch");
    assert.deepEqual(arrays[0].map((m) => m.params), [[3, 4], [5, 6]]);
  } finally {
    ours.destroy();
    port1.close();
  }
});

test("json-rpc-2.0 calling a schema-checked method: -32602 with the issues, the schema's output to the handler, rpc.discover", async () => {
  const { port1, port2 } = new MessageChannel();
  const other = stranger(port1);
  const ours = new lib.Peer(lib.portTransport(port2));
  const positive = {
    "~standard": {
      version: 1,
      vendor: "test",
      validate: (value) => (Array.isArray(value) && value.length === 2 && value.every((n) => typeof n === "number" && n > 0)
        ? { value: value.map((n) => n * 10) }
        : { issues: [{ message: "two positive numbers", path: [{ key: 0 }] }] }),
    },
  };
  ours.method("scaledAdd", ([a, b]) => a + b, { params: positive, description: "Adds, scaled" });
  try {
    await sleep(20);
    assert.equal(await other.peer.client.request("scaledAdd", [1, 2]), 30, "the handler got the schema's output");
    const answer = await other.peer.client.requestAdvanced({ jsonrpc: "2.0", method: "scaledAdd", params: [-1, 2], id: 77 });
    assert.deepEqual(answer, {
      jsonrpc: "2.0",
      id: 77,
      error: { code: -32602, message: "Invalid params", data: [{ message: "two positive numbers", path: [0] }] },
    });
    const document = await other.peer.client.request("rpc.discover");
    assert.equal(document.openrpc, "1.3.2");
    assert.deepEqual(document.methods.find((method) => method.name === "scaledAdd").description, "Adds, scaled");
  } finally {
    ours.destroy();
    port1.close();
  }
});

test("json-rpc-2.0 meets our limits and thrown codes: TOO_MANY_CALLS, one -32600 for a batch too long, a code kept", async () => {
  const { port1, port2 } = new MessageChannel();
  const other = stranger(port1);
  const ours = new lib.Peer(lib.portTransport(port2), { limits: { maxInFlight: 2 }, batches: 3 });
  const release = [];
  ours.method("hold", () => new Promise((resolve) => release.push(resolve)));
  ours.method("fails", () => {
    throw Object.assign(new Error("Build failed"), { code: -32001, data: { file: "a.ts" } });
  });
  const outcome = (promise) => promise.then((result) => ({ result }), (error) => ({ code: error.code, message: error.message, data: error.data }));
  try {
    await sleep(20);
    const held = [other.peer.request("hold"), other.peer.request("hold")];
    const third = await outcome(other.peer.request("hold"));
    assert.deepEqual(third, { code: lib.ErrorCode.TOO_MANY_CALLS, message: "Too many calls in flight", data: undefined },
      "the third call past two in flight");
    for (const resolve of release) resolve("done");
    assert.deepEqual(await Promise.all(held), ["done", "done"], "the two in flight still answered");
    assert.deepEqual(await outcome(other.peer.request("fails")),
      { code: -32001, message: "Build failed", data: { file: "a.ts" } }, "an Error with a code keeps it");
    // A batch longer than ours: json-rpc-2.0 sends it, and gets the spec's one error for it.
    other.received.length = 0;
    port1.postMessage([1, 2, 3, 4].map((id) => ({ jsonrpc: "2.0", method: "add", params: [id, id], id })));
    await sleep(50);
    assert.deepEqual(other.received.filter((m) => m.error), [
      { jsonrpc: "2.0", error: { code: -32600, message: "Batch too large" }, id: null },
    ]);
  } finally {
    ours.destroy();
    port1.close();
  }
});

test("json-rpc-2.0 reads a thrown error whole: its name, cause and fields in the error's data", async () => {
  const { port1, port2 } = new MessageChannel();
  const other = stranger(port1);
  const ours = new lib.Peer(lib.portTransport(port2));
  ours.method("build", () => {
    const error = new TypeError("build failed", { cause: new RangeError("disk full") });
    throw Object.assign(error, { file: "src/App.tsx", line: 3 });
  });
  try {
    const error = await other.peer.request("build").catch((e) => e);
    // json-rpc-2.0 rejects with its own error class: code, message and data as they came.
    assert.equal(error.code, -32603);
    assert.equal(error.message, "build failed");
    assert.deepEqual(error.data, {
      name: "TypeError",
      message: "build failed",
      fields: { file: "src/App.tsx", line: 3 },
      cause: { name: "RangeError", message: "disk full" },
    });
  } finally {
    ours.destroy();
    port1.close();
  }
});

test("the Wiggum spec's reference server: a handler that returns nothing answers { result: undefined }, and the call resolves", async () => {
  const reference = await import("../browser/reference.js");
  const { port1, port2 } = new MessageChannel();
  const server = new reference.JSONRPCServer(reference.portTransport(port1));
  server.method("log", () => {});
  server.method("add", ([a, b]) => a + b);
  const ours = new lib.Peer(lib.portTransport(port2), { timeout: 2000 });
  try {
    assert.equal(await ours.request("add", [2, 3]), 5);
    // Structured clone keeps the member: { jsonrpc, result: undefined, id }.
    assert.equal(await ours.request("log", ["hi"]), undefined);
  } finally {
    ours.destroy();
    server.destroy();
  }
});
