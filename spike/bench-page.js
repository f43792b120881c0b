// SPIKE: the speed comparison in a browser page (spike/browser-bench.mjs
// opens it): the spike's driver against today's web build (pkg/web), over
// MessageChannels, same page, rounds alternating.
import * as raw from "/spike/driver.js";
import init, * as pkg from "/pkg/wiggum_rpc.js";

await raw.init(await (await fetch("/spike/build/raw.wasm")).arrayBuffer());
await init();

const pairs = {
  raw: () => {
    const { port1, port2 } = new MessageChannel();
    return [new raw.Peer(port1), new raw.Peer(port2)];
  },
  pkg: () => {
    const { port1, port2 } = new MessageChannel();
    return [new pkg.Peer(pkg.portTransport(port1)), new pkg.Peer(pkg.portTransport(port2))];
  },
};
const open = async (which) => {
  const [a, b] = pairs[which]();
  b.method("add", ([x, y]) => x + y);
  await a.request("add", [0, 0]);
  return a;
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
async function echo(n) {
  const { port1, port2 } = new MessageChannel();
  port2.onmessage = (e) => port2.postMessage({ jsonrpc: "2.0", result: e.data.params[0] + e.data.params[1], id: e.data.id });
  let resolve;
  port1.onmessage = (e) => resolve(e.data.result);
  const t = performance.now();
  for (let i = 0; i < n; i++) {
    await new Promise((r) => {
      resolve = r;
      port1.postMessage({ jsonrpc: "2.0", method: "add", params: [i, 1], id: i + 1 });
    });
  }
  return n / ((performance.now() - t) / 1000);
}

window.runBench = async (n, batches) => {
  const peers = { raw: await open("raw"), pkg: await open("pkg") };
  for (const which of ["raw", "pkg"]) {
    // Warm-up, long enough for the module's functions to tier up.
    await sequential(peers[which], 20000);
    await inFlight(peers[which], 20);
  }
  const results = { raw: { seq: [], par: [] }, pkg: { seq: [], par: [] }, echo: [] };
  for (let round = 0; round < 3; round++) {
    for (const which of round % 2 === 0 ? ["raw", "pkg"] : ["pkg", "raw"]) {
      results[which].seq.push(await sequential(peers[which], n));
      results[which].par.push(await inFlight(peers[which], batches));
    }
    results.echo.push(await echo(n));
  }
  return results;
};
// One measure alone (a profiler's run).
let single;
window.runOne = async (which, n) => {
  single ??= await open(which);
  return sequential(single, n);
};
window.ready = true;
