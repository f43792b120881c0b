// A worker of the pool tests: it serves work that takes CPU, time or
// nothing, tells which worker it is, counts notifications, cancellations
// and the calls it runs at once, keeps the marks it was sent, reports
// progress, can loop for ever and can crash. Named "module", it waits for
// the page's compiled module (the pool's `module` option) instead of
// fetching the wasm.
import init, { Peer, selfTransport } from "/pkg/wiggum_rpc.js";

const id = Math.random().toString(36).slice(2, 8);
let module;
if (self.name === "module") {
  module = await new Promise((resolve) => {
    self.addEventListener("message", ({ data }) => data instanceof WebAssembly.Module && resolve(data));
  });
}
await init(module === undefined ? undefined : { module_or_path: module });
const peer = new Peer(selfTransport());
let notes = 0;
let aborted = 0;
let running = 0;
let peak = 0;
const marks = [];
peer.method("whoami", () => id);
peer.method("tiny", () => 1);
peer.method("slow", async ([ms]) => {
  running += 1;
  peak = Math.max(peak, running);
  await new Promise((resolve) => setTimeout(resolve, ms));
  running -= 1;
  return id;
});
// CPU-bound: `n` rounds of arithmetic.
peer.method("work", ([n]) => {
  let x = 1;
  for (let i = 0; i < n; i++) x = (x * 48271 + i) % 2147483647;
  return x;
});
// A handler stuck for ever: this worker's thread never comes back.
peer.method("spin", () => {
  for (;;);
});
peer.method("hang", (params, { signal }) => new Promise((_, reject) => {
  signal.addEventListener("abort", () => {
    aborted += 1;
    reject(signal.reason);
  });
}));
peer.method("mark", ([mark]) => {
  marks.push(mark);
  return id;
});
peer.method("steps", async ([steps], { progress }) => {
  for (let step = 1; step <= steps; step++) {
    await new Promise((resolve) => setTimeout(resolve, 10));
    progress(step);
  }
  return id;
});
peer.method("counts", () => ({ id, notes, aborted, peak, marks }));
peer.onNotify("note", () => {
  notes += 1;
});
// An uncaught error: the page's Worker gets an `error` event.
peer.method("crash", () => {
  setTimeout(() => {
    throw new Error("crashed");
  }, 0);
  return new Promise(() => {});
});
