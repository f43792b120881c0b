// Under load: 10,000 calls in flight at once, 1,000,000 calls one at a
// time, and a handler answering 10 MB results 100 times, each between two
// Peers over a MessageChannel, with memory read before and after: the wasm
// module's memory (exact, in every browser) and, where the browser tells a
// page (Chromium's performance.memory, with gc() exposed), the JS heap after
// forced collections.
import init, { Peer, portTransport } from "/pkg/wiggum_rpc.js";

const settle = () => new Promise((resolve) => setTimeout(resolve, 50));

async function memory(wasm) {
  if (typeof globalThis.gc === "function") {
    for (let i = 0; i < 4; i++) (globalThis.gc(), await settle());
  } else {
    await settle();
  }
  return { wasm: wasm.memory.buffer.byteLength, heap: performance.memory?.usedJSHeapSize ?? null };
}

/** Runs `work` between two memory readings; `{ ms, before, after, ...what work returns }`. */
async function measured(wasm, work) {
  const before = await memory(wasm);
  const started = performance.now();
  const outcome = await work();
  const ms = performance.now() - started;
  return { ms, before, after: await memory(wasm), ...outcome };
}

/** `[[load, { ms, before, after, ... }], …]`; `scale` shrinks every count for a smoke run. */
window.runLoad = async function runLoad({ scale = 1 } = {}) {
  const wasm = await init();
  const { port1, port2 } = new MessageChannel();
  const client = new Peer(portTransport(port1));
  const server = new Peer(portTransport(port2));
  server.method("add", ([a, b]) => a + b);
  // A fresh 10 MB result each time: what is left after the calls is what was kept.
  const size = 10 * 1024 * 1024;
  server.method("big", () => "x".repeat(size));
  // Warm up, so that allocators and the JIT have settled before the first reading.
  for (let i = 0; i < 20_000 * scale; i++) await client.request("add", [i, 1]);
  const results = [];

  // The first bursts grow the memory to what that many calls need at once
  // (a wasm memory never shrinks); ten more must find it there.
  const inFlight = Math.round(10_000 * scale);
  const burst = async () => {
    const answers = await Promise.all(Array.from({ length: inFlight }, (_, i) => client.request("add", [i, i])));
    return answers.filter((answer, i) => answer !== 2 * i).length;
  };
  for (const [label, bursts] of [["in flight", 1], ["in flight, the 2nd time", 1], ["in flight, 10 times more", 10]]) {
    results.push([`${inFlight.toLocaleString("en-US")} ${label}`, await measured(wasm, async () => {
      let wrong = 0;
      for (let i = 0; i < bursts; i++) wrong += await burst();
      return { wrong, pending: client.pending, calls: bursts * inFlight };
    })]);
  }

  const sequential = Math.round(1_000_000 * scale);
  results.push([`${sequential.toLocaleString("en-US")} sequential`, await measured(wasm, async () => {
    let wrong = 0;
    for (let i = 0; i < sequential; i++) if ((await client.request("add", [i, 1])) !== i + 1) wrong++;
    return { wrong, pending: client.pending };
  })]);

  const bigCalls = Math.max(2, Math.round(100 * scale));
  results.push([`10 MB result × ${bigCalls}`, await measured(wasm, async () => {
    let wrong = 0;
    for (let i = 0; i < bigCalls; i++) if ((await client.request("big")).length !== size) wrong++;
    return { wrong, pending: client.pending };
  })]);

  client.destroy();
  server.destroy();
  return results;
};
