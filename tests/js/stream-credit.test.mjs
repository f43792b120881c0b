// Streams with flow control, in Node over a MessageChannel: a producer that
// awaits `emit` runs at most a window ahead of a reader 1,000× slower than
// it; the chunks read as a ReadableStream; cancelling the reader cancels the
// producer; and a stranger that streams plain `stream.chunk` notifications
// (no hello, so no `stream.credit` toward it) still streams.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const lib = require("../../pkg/node/wiggum_rpc.cjs");
require("../../pkg/node/stream.cjs");

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function pair() {
  const { port1, port2 } = new MessageChannel();
  const server = new lib.Peer(lib.portTransport(port1));
  const client = new lib.Peer(lib.portTransport(port2));
  return { server, client, close: () => (client.destroy(), server.destroy()) };
}

test("a producer awaiting emit stays within a window of a reader 1,000× slower", async () => {
  const { server, client, close } = pair();
  let emitted = 0;
  server.method("count", async ({ to }, { emit }) => {
    for (let n = 0; n < to; n++) {
      emitted++;
      await emit(n);
    }
    return emitted;
  });
  try {
    await client.request("count", { to: 1 }); // the hellos have crossed
    emitted = 0;
    const started = performance.now();
    const call = client.stream("count", { to: 400 }, { window: 8 });
    let taken = 0;
    let ahead = 0;
    for await (const chunk of call) {
      assert.equal(chunk, taken);
      taken++;
      ahead = Math.max(ahead, emitted - taken);
      await sleep(taken % 4 === 0 ? 5 : 0); // a slow reader
    }
    assert.equal(await call.result, 400);
    assert.equal(taken, 400);
    console.log(`400 chunks, window 8: the producer ran at most ${ahead} chunks ahead of the reader (${Math.round(performance.now() - started)} ms)`);
    assert.ok(ahead <= 8 + 8, `at most about a window ahead, not ${ahead}`);

    // Without a window the same producer runs ahead freely: the bound is the window's doing.
    emitted = 0;
    let freeAhead = 0;
    let read = 0;
    const free = client.stream("count", { to: 400 }, { window: 1_000_000 });
    for await (const chunk of free) {
      read++;
      freeAhead = Math.max(freeAhead, emitted - read);
      if (chunk === 0) await sleep(50);
    }
    assert.ok(freeAhead > 100, `a window of a million bounds nothing here (${freeAhead} ahead)`);
  } finally {
    close();
  }
});

test("a streamed call read as a ReadableStream; cancelling the reader cancels the producer", async () => {
  const { server, client, close } = pair();
  const aborted = [];
  server.method("ticks", async (params, { emit, signal }) => {
    signal.addEventListener("abort", () => aborted.push(signal.reason.code));
    for (let n = 0; !signal.aborted; n++) await emit(n);
    return "stopped";
  });
  server.method("ping", () => "pong");
  try {
    await client.request("ping"); // the hellos have crossed: the window holds this endless producer back
    const call = client.stream("ticks");
    const reader = call.readable.getReader();
    assert.deepEqual([(await reader.read()).value, (await reader.read()).value, (await reader.read()).value], [0, 1, 2]);
    await reader.cancel("enough");
    await assert.rejects(call.result, { code: lib.ErrorCode.REQUEST_CANCELLED });
    await sleep(50);
    assert.deepEqual(aborted, [lib.ErrorCode.REQUEST_CANCELLED]);
  } finally {
    close();
  }
});

test("a stranger streaming plain stream.chunk notifications: no stream.credit toward it, every chunk read", async () => {
  const { port1, port2 } = new MessageChannel();
  const received = [];
  // A hand-written server (seed 001's convention): chunks, stream.end, then the answer.
  port1.on("message", (message) => {
    received.push(message);
    if (message.method !== "lines") return;
    for (const line of ["a", "b", "c"]) port1.postMessage({ jsonrpc: "2.0", method: "stream.chunk", params: { id: message.id, chunk: line } });
    port1.postMessage({ jsonrpc: "2.0", method: "stream.end", params: { id: message.id } });
    port1.postMessage({ jsonrpc: "2.0", result: 3, id: message.id });
  });
  const client = new lib.Peer(lib.portTransport(port2));
  try {
    const call = client.stream("lines");
    const lines = [];
    for await (const line of call) lines.push(line);
    assert.deepEqual(lines, ["a", "b", "c"]);
    assert.equal(await call.result, 3);
    assert.ok(received.every((message) => message.method !== "stream.credit"), JSON.stringify(received));
  } finally {
    client.destroy();
    port1.close();
  }
});
