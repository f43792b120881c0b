// A hostile client against a Hub on a real WebSocket (the server in a child
// process): 2,000 random frames (bad JSON, ids JSON cannot echo, deep
// arrays, 5 MB strings, binary frames, batches past the limit) while ten
// other clients call, then one batch frame of a million requests. The ten see
// every answer, the server stays up and answers each bad frame as the spec
// says, and its memory comes back near where it was.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { createRequire } from "node:module";
import { WebSocket } from "ws";

const require = createRequire(import.meta.url);
const { Peer } = require("../../pkg/node/wiggum_rpc.cjs");
const { webSocketTransport } = require("../../pkg/node/websocket.cjs");

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const MB = 1 << 20;

/** A deterministic stream of numbers in [0, 1). */
function random(seed) {
  return () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
}

/** The frames the hostile client sends, and what each must get back (a code, or "answer"). */
function hostileFrames(count) {
  const next = random(7);
  const huge = "x".repeat(5 * MB);
  const kinds = [
    () => ["{ not json", -32700],
    () => ['{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1e400}', -32600],
    // Ids JSON.parse reads as ±Infinity, whose answer would name `id: null`: refused, never run.
    () => ['{"jsonrpc":"2.0","method":"echo","id":1e400}', -32600],
    () => ['{"jsonrpc":"2.0","method":"echo","params":[1],"id":-1e400}', -32600],
    () => ['{"jsonrpc":"2.0","method":"add","params":[1,2],"id":123456789012345678901234567890}', -32600],
    () => ['{"jsonrpc":"2.0","method":"add","params":[1,2],"id":9007199254740993}', -32600],
    () => [`{"jsonrpc":"2.0","method":"echo","params":${"[".repeat(5_000)}${"]".repeat(5_000)},"id":1}`, -32600],
    () => [Buffer.from([0, 1, 2, 3]), -32700],
    () => [JSON.stringify(Array.from({ length: 1_001 }, (_, id) => ({ jsonrpc: "2.0", method: "add", params: [1, 1], id }))), -32600],
    () => [`{"jsonrpc":"2.0","method":"add","params":[1,2],"id":"ok"}`, "answer"],
    () => [`{"jsonrpc":"2.0","method":"nothing","id":2}`, -32601],
  ];
  const frames = [];
  for (let i = 0; i < count; i++) {
    // One frame in 200 carries a 5 MB string: answered, and let go after.
    if (i % 200 === 199) frames.push([`{"jsonrpc":"2.0","method":"echo","params":["${huge}"],"id":"big"}`, "answer"]);
    else frames.push(kinds[Math.floor(next() * kinds.length)]());
  }
  return frames;
}

/** Ten clients calling `add` one after another until `stop()`: every outcome, and the slowest call per phase. */
async function callers(url) {
  const peers = await Promise.all(Array.from({ length: 10 }, async () => {
    const transport = webSocketTransport(url, { WebSocket });
    const peer = new Peer(transport, { timeout: 20_000 });
    await new Promise((resolve) => (transport.connected ? resolve() : peer.on("open", resolve)));
    return peer;
  }));
  let running = true;
  let phase = "random frames";
  const slowest = {};
  const outcomes = { answered: 0, failed: [] };
  const loops = peers.map(async (peer, at) => {
    for (let n = 0; running; n++) {
      const started = performance.now();
      try {
        assert.equal(await peer.request("add", [at, n]), at + n);
        outcomes.answered++;
      } catch (error) {
        outcomes.failed.push(String(error));
      }
      const took = performance.now() - started;
      slowest[phase] = Math.max(slowest[phase] ?? 0, took);
      await sleep(1);
    }
  });
  return {
    outcomes,
    slowest,
    phase: (name) => (phase = name),
    async stop() {
      running = false;
      await Promise.all(loops);
      for (const peer of peers) peer.destroy();
    },
  };
}

test("a hostile client: 2,000 random frames, then a million-request batch frame, while ten others call", { timeout: 240_000 }, async () => {
  const server = spawn(process.execPath, ["--expose-gc", new URL("./hostile/server.mjs", import.meta.url).pathname], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  try {
    const [line] = await once(server.stdout, "data");
    const url = `ws://127.0.0.1:${JSON.parse(String(line)).port}/`;
    const probe = new Peer(webSocketTransport(url, { WebSocket }));
    const before = await probe.request("memory");

    const others = await callers(url);
    // The hostile client: a raw socket; each frame waits for its answer (or a beat, for none).
    const hostile = new WebSocket(url);
    await once(hostile, "open");
    const answers = [];
    hostile.on("message", (data) => answers.push(JSON.parse(String(data))));
    const frames = hostileFrames(2_000);
    const expected = { answer: 0, codes: {} };
    for (const [frame, outcome] of frames) {
      const seen = answers.length;
      hostile.send(frame);
      if (outcome === "answer") expected.answer++;
      else expected.codes[outcome] = (expected.codes[outcome] ?? 0) + 1;
      for (let waited = 0; answers.length === seen && waited < 2_000; waited += 1) await sleep(1);
    }
    assert.equal(answers.length, frames.length, "one answer per frame");
    const codes = {};
    for (const answer of answers) if (answer.error) codes[answer.error.code] = (codes[answer.error.code] ?? 0) + 1;
    assert.deepEqual(codes, expected.codes, "each bad frame got the spec's answer");
    assert.equal(answers.filter((a) => "result" in a).length, expected.answer, "each good one its result");
    assert.ok(answers.every((a) => a.id === null || typeof a.id === "string" || Number.isSafeInteger(a.id)),
      "no answer carries an id JSON cannot echo exactly");
    assert.ok(answers.filter((a) => a.error?.code === -32600).every((a) => a.id === null), "refusals name no id");

    // One batch frame of a million requests (about 57 MB), from another process: cut off at the limit.
    hostile.close();
    const sender = spawn(process.execPath, [new URL("./hostile/batch-client.mjs", import.meta.url).pathname, url], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    const lines = [];
    sender.stdout.on("data", (chunk) => lines.push(...String(chunk).trim().split("\n")));
    for (let waited = 0; lines.length === 0 && waited < 60_000; waited += 10) await sleep(10);
    const batchBytes = JSON.parse(lines[0]).bytes;
    others.phase("million-request batch");
    await once(sender, "exit");
    const { code, reason } = JSON.parse(lines[1]);
    await sleep(500);
    others.phase("after");
    await sleep(200);
    await others.stop();
    assert.deepEqual(others.outcomes.failed, [], "the ten lost no call");
    assert.ok(others.outcomes.answered > 100, `the ten were answered (${others.outcomes.answered})`);
    assert.equal(code, 1009, `the batch frame closed its connection as too big (${code} ${reason})`);
    // The server refuses the frame by its size, unread: reading 57 MB of JSON
    // and a million requests would hold its loop for seconds. The bound is
    // relative to the same calls' slowest during the random frames, so that
    // a loaded machine (slower for every call alike) does not fail it.
    const bound = Math.max(400, 4 * others.slowest["random frames"]);
    assert.ok(others.slowest["million-request batch"] < bound,
      `the others' slowest call while the batch came: ${others.slowest["million-request batch"]} ms (bound ${bound} ms)`);

    const after = await probe.request("memory");
    probe.destroy();
    const mb = (bytes) => (bytes / MB).toFixed(1);
    console.log(`hostile client: ${frames.length} frames answered; batch of ${mb(batchBytes)} MB closed with ${code}; ` +
      `the ten others: ${others.outcomes.answered} calls answered, slowest ${others.slowest["random frames"].toFixed(1)} ms ` +
      `during the random frames, ${others.slowest["million-request batch"].toFixed(1)} ms during the batch; ` +
      `server heap ${mb(before.heapUsed)} → ${mb(after.heapUsed)} MB, external ${mb(before.external)} → ${mb(after.external)} MB, ` +
      `rss ${mb(before.rss)} → ${mb(after.rss)} MB, wasm ${mb(before.wasm ?? 0)} → ${mb(after.wasm ?? 0)} MB`);
    assert.ok(after.heapUsed - before.heapUsed < 8 * MB, "the heap came back within 8 MB");
    assert.ok(after.external - before.external < 8 * MB, "external memory came back within 8 MB");
  } finally {
    server.kill();
  }
});
