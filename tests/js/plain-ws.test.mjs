// Interop with a plain JSON-RPC 2.0 WebSocket server that shares no code with
// wiggum-rpc (tests/py/jsonrpc_ws_server.py: Python's websockets and
// jsonrpcserver), driven from Chromium through webSocketTransport: positional
// and named params, notifications, an application error with data, calls that
// really travel as one batch array, and a notification the server pushes.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { openLibPage } from "./browser.mjs";
import { startPythonServer } from "./python.mjs";

let server;
let opened;
let page;

before(async () => {
  server = await startPythonServer("jsonrpc_ws_server.py", ["0"]);
  opened = await openLibPage();
  page = opened.page;
  await page.evaluate((url) => {
    // A WebSocket has no handshake: batching toward this server, which reads
    // batches, is the caller's choice.
    window.peer = new lib.Peer(lib.webSocketTransport(url), { batch: true });
    window.ticks = [];
    window.peer.onNotify("tick", (params) => window.ticks.push(params));
    window.outcome = (promise) => promise.then(
      (value) => ({ value }),
      (error) => ({ code: error.code, message: error.message, ...(error.data === undefined ? {} : { data: error.data }) }),
    );
  }, `ws://127.0.0.1:${server.port}`);
});

after(async () => {
  await opened?.close();
  await server?.stop();
});

test("calls with positional and named params", { timeout: 30_000 }, async () => {
  const answers = await page.evaluate(async () => ({
    sum: await window.peer.request("add", [2, 3]),
    difference: await window.peer.request("subtract", { minuend: 42, subtrahend: 23 }),
    viaRemote: await window.peer.remote().add(20, 22),
    floats: await window.peer.request("add", [0.5, 0.25]),
  }));
  assert.deepEqual(answers, { sum: 5, difference: 19, viaRemote: 42, floats: 0.75 });
});

test("the server's protocol errors keep their code, message and data", { timeout: 30_000 }, async () => {
  const outcomes = await page.evaluate(async () => ({
    missing: await window.outcome(window.peer.request("nope", [])),
    arity: await window.outcome(window.peer.request("add", [1])),
    names: await window.outcome(window.peer.request("subtract", { minuend: 1 })),
  }));
  assert.deepEqual(outcomes.missing, { code: -32601, message: "Method not found", data: "nope" });
  assert.deepEqual(outcomes.arity, { code: -32602, message: "Invalid params", data: "missing a required argument: 'b'" });
  assert.deepEqual(outcomes.names, { code: -32602, message: "Invalid params", data: "missing a required argument: 'subtrahend'" });
});

test("an application error arrives with its code, message and data", { timeout: 30_000 }, async () => {
  const outcome = await page.evaluate(() => window.outcome(window.peer.request("fail")));
  assert.deepEqual(outcome, { code: -32001, message: "Build failed", data: { file: "a.ts", line: 3 } });
});

test("notifications reach the server in order", { timeout: 30_000 }, async () => {
  const logs = await page.evaluate(async () => {
    window.peer.notify("log", ["build started"]);
    window.peer.notify("log", { level: "warn", text: "slow step" });
    return window.peer.request("get_logs");
  });
  assert.deepEqual(logs, [["build started"], { level: "warn", text: "slow step" }]);
});

test("with batch: true, calls issued together while another is in flight travel as one batch", { timeout: 30_000 }, async () => {
  const result = await page.evaluate(async () => {
    const peer = window.peer;
    const before = await peer.request("batches");
    const settled = [];
    const slow = peer.request("sleep", [0.3]).then((value) => (settled.push("sleep"), value));
    await new Promise((resolve) => setTimeout(resolve, 50));
    const together = Promise.all([
      peer.request("add", [1, 2]),
      peer.request("subtract", { minuend: 10, subtrahend: 4 }),
      peer.request("add", [5, 5]),
    ]).then((values) => (settled.push("batch"), values));
    const [values, slept] = await Promise.all([together, slow]);
    const batches = await peer.request("batches");
    const count = await peer.request("batch_count");
    return { values, slept, settled, added: batches.slice(before.length), count, countBefore: before.length };
  });
  assert.deepEqual(result.values, [3, 6, 10]);
  assert.equal(result.slept, 0.3);
  assert.deepEqual(result.added.map((names) => [...names].sort()), [["add", "add", "subtract"]],
    "the server received the three calls as one batch array");
  assert.equal(result.count, result.countBefore + 1);
  // The server answers the batch at once with a batch of responses, long
  // before the slow call returns.
  assert.deepEqual(result.settled, ["batch", "sleep"]);
});

test("a notification pushed by the server reaches the browser", { timeout: 30_000 }, async () => {
  const answer = await page.evaluate(() => window.peer.request("notify_me"));
  assert.equal(answer, true);
  await page.waitForFunction(() => window.ticks.length > 0, null, { timeout: 5000 });
  assert.deepEqual(await page.evaluate(() => window.ticks), [[1]]);
});
