// Cold start in an iframe, wiggum-rpc with the parent's compiled module:
// the frame asks for it (a window's messages are not queued for a listener
// to come), instantiates it, then opens a Peer toward the parent.
import init, { Peer, windowTransport } from "/pkg/wiggum_rpc.js";

const module = await new Promise((resolve) => {
  addEventListener("message", ({ data }) => data instanceof WebAssembly.Module && resolve(data));
  parent.postMessage("module?", location.origin);
});
await init({ module_or_path: module });
const peer = new Peer(windowTransport(parent, window, location.origin));
peer.method("add", ([a, b]) => a + b);
