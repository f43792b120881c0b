// SPIKE: speed and crossings of the plain-ABI driver against today's package
// (pkg/node, built by `bash scripts/build.sh bundler`), same process, rounds alternating.
//   node spike/bench.mjs            round trips/s and 1000-in-flight calls/s, 3 rounds
//   node spike/bench.mjs --direct   the same over a channel without structured clone (library cost only)
//   node spike/bench.mjs --count    crossings (export + import calls) per round trip
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";

const counting = process.argv.includes("--count");
// Counts every call into and out of each module (wrapping before either is instantiated).
const counts = { raw: { exports: 0, imports: 0 }, pkg: { exports: 0, imports: 0 } };
const wrapped = (object, count, key) => {
  const out = {};
  for (const [name, value] of Object.entries(object)) {
    out[name] = typeof value === "function" ? (...args) => (count[key]++, value(...args)) : value;
  }
  return out;
};
const wrapImports = (imports, count) =>
  Object.fromEntries(Object.entries(imports).map(([module, fns]) => [module, wrapped(fns, count, "imports")]));
if (counting) {
  const Instance = WebAssembly.Instance;
  WebAssembly.Instance = function (module, imports) {
    const instance = new Instance(module, wrapImports(imports, counts.pkg));
    return { exports: wrapped(instance.exports, counts.pkg, "exports") };
  };
  const instantiate = WebAssembly.instantiate;
  WebAssembly.instantiate = async (source, imports) => {
    const made = await instantiate(source, wrapImports(imports, counts.raw));
    return { instance: { exports: wrapped(made.instance.exports, counts.raw, "exports") }, module: made.module };
  };
}

const raw = await import(new URL("./driver.js", import.meta.url).pathname);
await raw.init(readFileSync(new URL("./build/raw.wasm", import.meta.url)));
const pkg = createRequire(import.meta.url)("../pkg/node/wiggum_rpc.cjs");

// `--direct`: a channel that delivers on a microtask, without a structured
// clone: what is left is the library's own cost per message.
class DirectPort extends EventTarget {
  other;
  #on;
  postMessage(data) {
    const other = this.other;
    queueMicrotask(() => other.dispatchEvent(Object.assign(new Event("message"), { data })));
  }
  start() {}
  close() {}
  set onmessage(listener) {
    if (this.#on) this.removeEventListener("message", this.#on);
    this.#on = listener;
    if (listener) this.addEventListener("message", listener);
  }
}
const direct = process.argv.includes("--direct");
const channel = () => {
  if (!direct) return new MessageChannel();
  const port1 = new DirectPort();
  const port2 = new DirectPort();
  port1.other = port2;
  port2.other = port1;
  return { port1, port2 };
};
const pairs = {
  raw: () => {
    const { port1, port2 } = channel();
    return [new raw.Peer(port1), new raw.Peer(port2)];
  },
  pkg: () => {
    const { port1, port2 } = channel();
    return [new pkg.Peer(pkg.portTransport(port1)), new pkg.Peer(pkg.portTransport(port2))];
  },
};

const open = async (which) => {
  const [a, b] = pairs[which]();
  b.method("add", ([x, y]) => x + y);
  await a.request("add", [0, 0]); // the hello exchanged
  return [a, b];
};

async function sequential(a, n) {
  const t = performance.now();
  let sum = 0;
  for (let i = 0; i < n; i++) sum += await a.request("add", [i, 1]);
  if (sum !== (n * (n + 1)) / 2) throw new Error("wrong sum");
  return n / ((performance.now() - t) / 1000);
}

async function inFlight(a, batches) {
  const t = performance.now();
  for (let k = 0; k < batches; k++) {
    const all = await Promise.all(Array.from({ length: 1000 }, (_, i) => a.request("add", [i, 1])));
    if (all.reduce((s, n) => s + n, 0) !== 500500) throw new Error("wrong sum");
  }
  return (batches * 1000) / ((performance.now() - t) / 1000);
}

if (counting) {
  for (const which of ["raw", "pkg"]) {
    const [a, b] = await open(which);
    for (let i = 0; i < 100; i++) await a.request("add", [i, 1]);
    const before = { ...counts[which] };
    const n = 1000;
    for (let i = 0; i < n; i++) await a.request("add", [i, 1]);
    const e = (counts[which].exports - before.exports) / n;
    const m = (counts[which].imports - before.imports) / n;
    console.log(`${which}: per sequential round trip (both sides): ${e} export calls + ${m} import calls = ${e + m} crossings`);
    const before2 = { ...counts[which] };
    await Promise.all(Array.from({ length: 1000 }, (_, i) => a.request("add", [i, 1])));
    const e2 = (counts[which].exports - before2.exports) / 1000;
    const m2 = (counts[which].imports - before2.imports) / 1000;
    console.log(`${which}: per call of 1000 in flight (both sides): ${e2} export calls + ${m2} import calls`);
    a.destroy();
    b.destroy();
  }
  process.exit(0);
}

// The floor: a bare MessageChannel echo (structured clone both ways, no JSON-RPC).
async function echo(n) {
  const { port1, port2 } = channel();
  port2.onmessage = (event) => port2.postMessage({ jsonrpc: "2.0", result: event.data.params[0] + event.data.params[1], id: event.data.id });
  let resolve;
  port1.onmessage = (event) => resolve(event.data.result);
  const t = performance.now();
  let sum = 0;
  for (let i = 0; i < n; i++) {
    sum += await new Promise((r) => {
      resolve = r;
      port1.postMessage({ jsonrpc: "2.0", method: "add", params: [i, 1], id: i + 1 });
    });
  }
  const rate = n / ((performance.now() - t) / 1000);
  port1.close();
  if (sum !== (n * (n + 1)) / 2) throw new Error("wrong sum");
  return rate;
}
const floor = [];

const results = { raw: { seq: [], par: [] }, pkg: { seq: [], par: [] } };
const peers = { raw: await open("raw"), pkg: await open("pkg") };
// Warm-up.
for (const which of ["raw", "pkg"]) {
  await sequential(peers[which][0], 5000);
  await inFlight(peers[which][0], 5);
}
for (let round = 0; round < 3; round++) {
  for (const which of round % 2 === 0 ? ["raw", "pkg"] : ["pkg", "raw"]) {
    results[which].seq.push(await sequential(peers[which][0], 30000));
    results[which].par.push(await inFlight(peers[which][0], 40));
  }
  floor.push(await echo(30000));
}
const fmt = (xs) => xs.map((x) => Math.round(x).toLocaleString("en")).join(", ");
const median = (xs) => [...xs].sort((p, q) => p - q)[1];
for (const which of ["raw", "pkg"]) {
  console.log(`${which}: sequential round trips/s: ${fmt(results[which].seq)} | 1000-in-flight calls/s: ${fmt(results[which].par)}`);
}
console.log(`bare ${direct ? "direct channel" : "MessageChannel"} echo round trips/s: ${fmt(floor)}`);
console.log(`ratio raw/pkg (medians): sequential ${(median(results.raw.seq) / median(results.pkg.seq)).toFixed(2)}, in flight ${(median(results.raw.par) / median(results.pkg.par)).toFixed(2)}`);
process.exit(0);
