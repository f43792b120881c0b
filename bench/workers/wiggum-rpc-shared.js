// Cold start, wiggum-rpc bundled, with the page's compiled module: the first message
// is the WebAssembly.Module (from `compiledModule()`), which `init`
// instantiates without fetching or compiling the .wasm.
import init, { Peer, selfTransport } from "/pkg/wiggum_rpc.js";

const module = await new Promise((resolve) => {
  self.addEventListener("message", ({ data }) => resolve(data), { once: true });
});
await init({ module_or_path: module });
const peer = new Peer(selfTransport());
peer.method("add", ([a, b]) => a + b);
