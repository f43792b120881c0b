// The npm package's Node build (`wiggum-rpc/framing`): the Content-Length codec from
// JS, and a JSONRPCClient driving the `duet-rpc rpc` child process over its
// stdio with streamTransport.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
// The npm package's Node build: the root entry and `wiggum-rpc/framing`.
const lib = { ...require("../../pkg/node/wiggum_rpc.cjs"), ...require("../../pkg/node/framing.cjs") };
const binary = new URL("../../target/debug/duet-rpc", import.meta.url).pathname;

test("FrameDecoder: any chunking, refusals, encodeFrame's byte count", () => {
  const body = JSON.stringify({ jsonrpc: "2.0", method: "note", params: ["héllo ✓"] });
  const frame = lib.encodeFrame(body);
  assert.ok(frame instanceof Uint8Array);
  assert.match(new TextDecoder().decode(frame), new RegExp(`^Content-Length: ${Buffer.byteLength(body)}\r\n\r\n`));
  const stream = new Uint8Array([...frame, ...frame, ...lib.encodeFrame("{}")]);
  for (const size of [1, 2, 7, 64, stream.length]) {
    const decoder = new lib.FrameDecoder();
    const out = [];
    for (let at = 0; at < stream.length; at += size) out.push(...decoder.push(stream.subarray(at, at + size)));
    assert.deepEqual(out, [body, body, "{}"], `chunks of ${size}`);
    assert.equal(decoder.partial, false);
    decoder.free();
  }
  const decoder = new lib.FrameDecoder();
  const refused = decoder.push(new TextEncoder().encode("Content-Length: 2\r\nContent-Type: application/json\r\n\r\n{}"));
  assert.deepEqual(refused.map((f) => f.code), [-32600]);
  decoder.push(new TextEncoder().encode("Content-Length: 10\r\n\r\n{"));
  assert.equal(decoder.partial, true);
  decoder.reset();
  assert.equal(decoder.partial, false);
});

test("a JSONRPCClient drives duet-rpc rpc over framed stdio", async () => {
  const child = spawn(binary, ["rpc"], { stdio: ["pipe", "pipe", "inherit"] });
  const exited = once(child, "exit");
  const client = new lib.JSONRPCClient(lib.streamTransport(child.stdout, child.stdin), { timeout: 5000 });
  try {
    assert.deepEqual(await client.request("version"), { version: "0.1.0" });
    const [init, methods] = await Promise.all([client.request("initialize"), client.request("listMethods")]);
    assert.equal(init.serverInfo.name, "duet-rpc");
    assert.equal(methods.length, 6);
    const unicode = "日本語 ✓";
    await assert.rejects(client.request("setLogLevel", { level: unicode }), (error) => {
      assert.ok(error instanceof lib.RPCError && error instanceof Error);
      assert.equal(error.code, lib.ErrorCode.INVALID_PARAMS);
      assert.equal(error.data.received, unicode);
      return true;
    });
    await assert.rejects(client.request("nope"), (error) => error.code === lib.ErrorCode.METHOD_NOT_FOUND);
    client.notify("setLogLevel", { level: "warn" });
    assert.deepEqual(await client.request("shutdown"), { message: "Shutting down gracefully" });
    assert.deepEqual(await exited, [0, null]);
  } finally {
    client.destroy();
    child.kill();
  }
});

test("Node's MessageChannel: two Peers, both directions, structured clones, clean exit", async () => {
  const { port1, port2 } = new MessageChannel();
  const left = new lib.Peer(lib.portTransport(port1));
  const right = new lib.Peer(lib.portTransport(port2));
  try {
    left.method("add", ([a, b]) => a + b);
    right.method("describe", ([value]) => Object.prototype.toString.call(value));
    right.method("askLeft", async () => `left says ${await right.request("add", [20, 22])}`);
    assert.equal(await right.request("add", [2, 3]), 5);
    assert.equal(await left.request("describe", [new Map([["a", 1]])]), "[object Map]");
    assert.equal(await left.request("describe", [new Uint8Array([1, 2])]), "[object Uint8Array]");
    assert.equal(await left.request("askLeft"), "left says 42");
    const answers = await Promise.all(Array.from({ length: 100 }, (_, i) => right.request("add", [i, i])));
    assert.deepEqual(answers, Array.from({ length: 100 }, (_, i) => 2 * i));
  } finally {
    // destroy() closes the ports, or Node would keep running.
    left.destroy();
    right.destroy();
  }
});
