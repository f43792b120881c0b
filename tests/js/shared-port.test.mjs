// A MessagePort shared with another protocol: ZenFS's Port backend (a file
// system served over the same port, as seed 000 §4 has it) beside a pair of
// Peers, in Node over worker_threads' MessageChannel. Both run at once and
// neither sees the other's messages; `portTransport(port, { closePort: false })`
// leaves the port to the file system when the Peers are destroyed, and the
// default closes it.
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { test } from "node:test";
import { MessageChannel } from "node:worker_threads";
import { WebSocket } from "ws";

// ZenFS's channel detection reads the WebSocket global, which Node 20 lacks.
globalThis.WebSocket ??= WebSocket;
const { configure, fs, InMemory, Port, resolveRemoteMount, umount } = await import("@zenfs/core");
const require = createRequire(import.meta.url);
const { Peer, portTransport } = require("../../pkg/node/wiggum_rpc.cjs");

// ZenFS's own calls time out after 250 ms by default: far too soon beside
// 500 calls on a loaded machine. The first test gives them time; the second
// waits out its timeout once (the write after destroy() that is never answered).
const ZENFS_TIMEOUT = 30_000;
const CUT_OFF_TIMEOUT = 2_000;

/** A file system served on `serverPort` and mounted at `at` over `clientPort`. */
async function mountShared(serverPort, clientPort, at, timeout) {
  await resolveRemoteMount(serverPort, { backend: InMemory });
  await configure({ mounts: { [at]: { backend: Port, port: clientPort, timeout } } });
}

test("ZenFS and a pair of Peers on one MessageChannel, both at full load: nothing lost, nothing crossed", async () => {
  const { port1, port2 } = new MessageChannel();
  await mountShared(port1, port2, "/shared", ZENFS_TIMEOUT);
  const server = new Peer(portTransport(port1, { closePort: false }));
  const client = new Peer(portTransport(port2, { closePort: false }));
  const seen = [];
  server.method("add", (params) => {
    seen.push(params);
    return params[0] + params[1];
  });

  const started = performance.now();
  const calls = Array.from({ length: 500 }, (_, i) => client.request("add", [i, 1]));
  const files = Array.from({ length: 100 }, (_, i) => fs.promises.writeFile(`/shared/f${i}.txt`, `file ${i}`));
  const [sums] = await Promise.all([Promise.all(calls), Promise.all(files)]);
  assert.deepEqual(sums, Array.from({ length: 500 }, (_, i) => i + 1));
  // Only the calls reached the handler: no ZenFS message was taken for JSON-RPC.
  assert.equal(seen.length, 500);
  assert.ok(seen.every((params) => Array.isArray(params) && params.length === 2));
  const read = await Promise.all(Array.from({ length: 100 }, (_, i) => fs.promises.readFile(`/shared/f${i}.txt`, "utf8")));
  assert.deepEqual(read, Array.from({ length: 100 }, (_, i) => `file ${i}`));
  console.log(`one port: 500 JSON-RPC calls and 200 ZenFS operations (100 writes at once with the calls, then 100 reads) in ${Math.round(performance.now() - started)} ms`);

  // The Peers go; the port stays the file system's.
  client.destroy();
  server.destroy();
  await fs.promises.writeFile("/shared/after.txt", "still here");
  assert.equal(await fs.promises.readFile("/shared/after.txt", "utf8"), "still here");
  umount("/shared");
  port1.close();
});

test("by default destroy() closes the port: the file system sharing it is cut off", async () => {
  const { port1, port2 } = new MessageChannel();
  await mountShared(port1, port2, "/cut", CUT_OFF_TIMEOUT);
  const client = new Peer(portTransport(port2));
  await fs.promises.writeFile("/cut/before.txt", "ok");
  client.destroy();
  await assert.rejects(fs.promises.writeFile("/cut/after.txt", "lost"));
  umount("/cut");
  port1.close();
});
