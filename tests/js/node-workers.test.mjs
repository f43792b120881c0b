// Node's own workers and ports (worker_threads) under the postMessage
// transports of the Node build: `workerTransport(worker)` and
// `portTransport(worker)` on the main thread, `selfTransport()` and
// `portTransport(parentPort)` in the worker, a MessagePort handed over with
// transfer(); and the other side's end (a worker terminated, a port's other
// side closed) failing a waiting call with CONNECTION_CLOSED at once, not
// at its timeout.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { MessageChannel, Worker } from "node:worker_threads";

const require = createRequire(import.meta.url);
const { Peer, portTransport, transfer, workerTransport } = require("../../pkg/node/wiggum_rpc.cjs");

const CONNECTION_CLOSED = -32095;
// Far above what noticing the end takes (milliseconds), far below the call's timeout.
const NOTICED_WITHIN_MS = 2000;
const worker = (transport) => new Worker(new URL("./node-workers/worker.cjs", import.meta.url), { workerData: { transport } });

/** Calls `hang`, ends the other side with `end()`: how the call failed, and how soon. */
async function endedBy(peer, end) {
  const closes = [];
  peer.on("close", (detail) => closes.push(detail?.reason));
  const call = peer.request("hang", undefined, { timeout: 20000 });
  await new Promise((resolve) => setTimeout(resolve, 50));
  const started = performance.now();
  await end();
  const error = await call.then(() => undefined, (error) => error);
  return { code: error?.code, ms: performance.now() - started, closes };
}

for (const [page, side] of [
  ["workerTransport(worker)", "selfTransport()"],
  ["portTransport(worker)", "portTransport(parentPort)"],
]) {
  test(`${page} ↔ ${side}: calls both ways of a transferred port, and the worker terminated fails the waiting calls at once`, async () => {
    const child = worker(side.includes("parentPort") ? "parentPort" : "self");
    const peer = new Peer(page.startsWith("worker") ? workerTransport(child) : portTransport(child));
    assert.equal(await peer.request("add", [2, 3]), 5);
    const buffer = new ArrayBuffer(1024);
    assert.equal(await peer.request("length", transfer([buffer], [buffer])), 1024);
    assert.equal(buffer.byteLength, 0, "the buffer moved, not copied");

    // A port of a MessageChannel handed to the worker, served there.
    const { port1, port2 } = new MessageChannel();
    assert.equal(await peer.request("serve port", transfer([port2], [port2])), "serving");
    const overPort = new Peer(portTransport(port1));
    assert.equal(await overPort.request("add", [20, 22]), 42);

    const waitingOnPort = endedBy(overPort, () => {});
    const ended = await endedBy(peer, () => child.terminate());
    assert.equal(ended.code, CONNECTION_CLOSED, `the worker's end: ${JSON.stringify(ended)}`);
    assert.ok(ended.ms < NOTICED_WITHIN_MS, `noticed in ${ended.ms} ms`);
    assert.deepEqual(ended.closes, ["the other side has gone"]);
    const onPort = await waitingOnPort;
    assert.equal(onPort.code, CONNECTION_CLOSED, `the port to the ended worker: ${JSON.stringify(onPort)}`);
    peer.destroy();
    overPort.destroy();
  });
}

test("a port whose other side's Peer is destroyed (its port closed) fails the waiting call at once", async () => {
  const { port1, port2 } = new MessageChannel();
  const server = new Peer(portTransport(port2));
  server.method("hang", () => new Promise(() => {}));
  const client = new Peer(portTransport(port1));
  const ended = await endedBy(client, () => server.destroy());
  assert.equal(ended.code, CONNECTION_CLOSED, JSON.stringify(ended));
  assert.ok(ended.ms < NOTICED_WITHIN_MS, `noticed in ${ended.ms} ms`);
  client.destroy();
});
