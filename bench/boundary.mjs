// Counts the crossings of the JS↔wasm boundary per call: every export and
// import of the Node build's module instance is wrapped with a counter
// before the package instantiates it, then two Peers on a MessageChannel
// make sequential round trips (plain, and with a deadline in their metadata)
// and a burst of calls in flight.
// (bench/crossings.mjs counts the JS functions a round trip runs instead.)
//
//   node bench/boundary.mjs [calls] [width]    (default 200 round trips, then 1,024 calls at once; pkg/ built)
import { createRequire } from "node:module";

const calls = Number(process.argv[2] ?? 200);
const width = Number(process.argv[3] ?? 1024);
const count = { into: 0, out: 0, byName: { into: {}, out: {} } };
const counted = (side, name, fn) =>
  function (...args) {
    count[side] += 1;
    count.byName[side][name] = (count.byName[side][name] ?? 0) + 1;
    return fn.apply(this, args);
  };

// The Node build makes its instance with `new WebAssembly.Instance`: the
// imports it passes and the exports it reads go through the counters.
const Instance = WebAssembly.Instance;
WebAssembly.Instance = function (module, imports) {
  const wrapped = {};
  for (const [from, fns] of Object.entries(imports)) {
    wrapped[from] = {};
    for (const [name, fn] of Object.entries(fns)) wrapped[from][name] = typeof fn === "function" ? counted("out", name, fn) : fn;
  }
  const exports = {};
  for (const [name, value] of Object.entries(new Instance(module, wrapped).exports)) {
    exports[name] = typeof value === "function" ? counted("into", name, value) : value;
  }
  return { exports };
};

const require = createRequire(import.meta.url);
const { Peer, portTransport } = require("../pkg/node/wiggum_rpc.cjs");
const { port1, port2 } = new MessageChannel();
const server = new Peer(portTransport(port1));
server.method("add", ([a, b]) => a + b);
const client = new Peer(portTransport(port2));
// Past the handshake and the first calls' one-time work.
for (let i = 0; i < 50; i++) await client.request("add", [i, 1]);

/** Crossings per call of `work(n)`, for `n` calls. */
async function per(n, work) {
  const before = { into: count.into, out: count.out };
  count.byName = { into: {}, out: {} };
  await work(n);
  const into = (count.into - before.into) / n;
  const out = (count.out - before.out) / n;
  return `${into.toFixed(2)} into wasm, ${out.toFixed(2)} out of wasm (by export: ${JSON.stringify(count.byName.into)}; by import: ${JSON.stringify(count.byName.out)})`;
}

console.log(`one sequential round trip (${calls}): ${await per(calls, async (n) => {
  for (let i = 0; i < n; i++) await client.request("add", [i, 2]);
})}`);
// A call given a timeout tells its deadline in its metadata: the reader hands the metadata over, the core reads the deadline.
console.log(`one sequential round trip with a deadline (${calls}): ${await per(calls, async (n) => {
  for (let i = 0; i < n; i++) await client.request("add", [i, 2], { timeout: 5_000 });
})}`);
console.log(`one call of ${width} in flight: ${await per(width, (n) => Promise.all(Array.from({ length: n }, (_, i) => client.request("add", [i, 3]))))}`);
client.destroy();
server.destroy();
port1.close();
port2.close();
