// A bundled page on `wiggum-rpc/web` that hands its compiled module to the
// worker it starts: the worker instantiates it without fetching the .wasm.
import init, { compiledModule, Peer, workerTransport } from "wiggum-rpc/web";

await init();
const worker = new Worker(new URL("./shared-worker.js", import.meta.url), { type: "module" });
worker.postMessage(compiledModule());
const peer = new Peer(workerTransport(worker));
window.result = {
  module: compiledModule() instanceof WebAssembly.Module,
  sum: await peer.request("add", [2, 3]),
  wasmFetched: await peer.request("wasmFetched"),
};
