// SPIKE: correctness of the plain-ABI driver in Node, over MessageChannels.
//   node spike/test.mjs [driver path, default spike/driver.js]
import { readFileSync } from "node:fs";
import assert from "node:assert/strict";

const driverPath = process.argv[2] ?? new URL("./driver.js", import.meta.url).pathname;
const { init, Peer, RPCError, liveHandles } = await import(driverPath);
await init(readFileSync(new URL("./build/raw.wasm", import.meta.url)));

const pair = (options) => {
  const { port1, port2 } = new MessageChannel();
  return [new Peer(port1, options), new Peer(port2, options)];
};
const rejection = async (promise) => {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  assert.fail("expected a rejection");
};

// A call answered; an unknown method; a throwing handler; a timeout; 1000 in flight.
{
  const [a, b] = pair();
  b.method("add", ([x, y]) => x + y);
  b.method("echo", (p) => p);
  b.method("later", async (p) => {
    await new Promise((r) => setTimeout(r, 5));
    return p.n * 2;
  });
  b.method("boom", () => {
    const error = new TypeError("bad thing");
    error.detail = 42;
    throw error;
  });
  b.method("coded", () => {
    throw new RPCError(-32001, "build failed", { file: "x.js" });
  });
  b.method("never", () => new Promise(() => {}));
  assert.equal(await a.request("add", [2, 3]), 5);
  assert.deepEqual(await a.request("echo", { s: "héllo ✓", nested: [1, { z: null }] }), { s: "héllo ✓", nested: [1, { z: null }] });
  assert.equal(await a.request("later", { n: 21 }), 42);
  const missing = await rejection(a.request("nope"));
  assert.ok(missing instanceof RPCError);
  assert.equal(missing.code, -32601);
  assert.equal(missing.message, "Method not found");
  const boom = await rejection(a.request("boom"));
  assert.equal(boom.code, -32603);
  assert.equal(boom.message, "bad thing");
  assert.equal(boom.data.name, "TypeError");
  assert.equal(boom.detail, 42);
  const coded = await rejection(a.request("coded"));
  assert.equal(coded.code, -32001);
  assert.deepEqual(coded.data, { file: "x.js" });
  const started = performance.now();
  const late = await rejection(a.request("never", [], { timeout: 50 }));
  assert.equal(late.code, -32099);
  assert.equal(late.message, "Request timed out: never");
  assert.ok(performance.now() - started >= 49);
  // A timeout of a second or more is measured from the next tick's clock reading (the coarse clock).
  const coarse = performance.now();
  const slowly = await rejection(a.request("never", [], { timeout: 1200 }));
  assert.equal(slowly.code, -32099);
  const took = performance.now() - coarse;
  assert.ok(took >= 1199 && took < 1500, `coarse timeout took ${took} ms`);
  const bad = await rejection(a.request("echo", 5));
  assert.equal(bad.code, -32602);
  // 1000 in flight, summed.
  const many = await Promise.all(Array.from({ length: 1000 }, (_, i) => a.request("add", [i, 1])));
  assert.equal(many.reduce((s, n) => s + n, 0), 500500);
  const slow = Array.from({ length: 1000 }, (_, i) => a.request("later", { n: i }));
  assert.equal((await Promise.all(slow)).reduce((s, n) => s + n, 0), 999000);
  // Re-entrant: a handler that calls back (its export runs while the first one's events are carried out).
  a.method("add", ([x, y]) => x + y);
  let told;
  a.onNotify("told", (p) => (told = p));
  b.method("relay", async (p) => {
    b.notify("told", { from: "relay" });
    return (await b.request("add", p)) * 10;
  });
  assert.equal(await a.request("relay", [4, 5]), 90);
  assert.deepEqual(told, { from: "relay" });
  // A notification, both ways.
  let got;
  b.onNotify("note", (p) => (got = p));
  a.notify("note", { k: 1 });
  await new Promise((r) => setTimeout(r, 10));
  assert.deepEqual(got, { k: 1 });
  assert.equal(a.pending, 0);
  // Every handle is given back once the module drops it: none left but what endpoints hold.
  const live = liveHandles();
  await Promise.all(Array.from({ length: 1000 }, (_, i) => a.request("add", [i, 1])));
  for (let i = 0; i < 100; i++) await a.request("echo", { i });
  assert.equal(liveHandles(), live, "handles leak");
  console.log(`live handles between calls: ${live}, the same after 1,100 more`);
  // Destroy rejects what waits.
  const waiting = a.request("never");
  a.destroy();
  const gone = await rejection(waiting);
  assert.equal(gone.code, -32098);
  b.destroy();
  await new Promise((r) => setTimeout(r, 10));
  console.log(`live handles once both are destroyed: ${liveHandles()}`);
  console.log("calls, errors, timeout, 1000 in flight (sync and async handlers), re-entrant calls, notify, destroy: ok");
}

// A stranger: plain JSON-RPC objects posted by hand get the spec's answers.
{
  const { port1, port2 } = new MessageChannel();
  const server = new Peer(port1, { handshake: false });
  server.method("sum", (p) => p.reduce((s, n) => s + n, 0));
  const answers = [];
  port2.onmessage = (event) => answers.push(event.data);
  const send = (m) => port2.postMessage(m);
  send({ jsonrpc: "2.0", method: "x", id: 1 });
  send({ jsonrpc: "2.0", method: 5, id: 2 });
  send({ jsonrpc: "2.0", method: "sum", params: "nope", id: 3 });
  send({ jsonrpc: "2.0", method: "sum", params: [1, 2, 3], id: "s" });
  send({ hello: "not ours" });
  send([{ jsonrpc: "2.0", method: "sum", params: [1, 1], id: 10 }, { jsonrpc: "2.0", method: "x", id: 11 }, 7]);
  send([]);
  await new Promise((r) => setTimeout(r, 20));
  port2.close();
  server.destroy();
  const byId = (id) => answers.find((a) => !Array.isArray(a) && a.id === id);
  assert.deepEqual(byId(1), { jsonrpc: "2.0", error: { code: -32601, message: "Method not found" }, id: 1 });
  assert.equal(byId(2).error.code, -32600);
  assert.equal(byId(3).error.code, -32600);
  assert.deepEqual(byId("s"), { jsonrpc: "2.0", result: 6, id: "s" });
  const batch = answers.find((a) => Array.isArray(a) && a.length === 3);
  assert.deepEqual(batch.map((r) => r.result ?? r.error.code), [2, -32601, -32600]);
  const empty = answers.find((a) => !Array.isArray(a) && a.id === null);
  assert.equal(empty.error.code, -32600);
  console.log("stranger: -32601, -32600 (invalid method, invalid params, empty batch), batch answered as one array: ok");
  console.log(JSON.stringify(answers));
}
process.exit(0);
