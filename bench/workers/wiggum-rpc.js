// Cold start, wiggum-rpc: the web build's JS bundled into the worker (as the
// other variants' libraries are), loaded as a worker of its own would load it
// (`init()` with the .wasm's path: the worker asks the page for the module it
// compiled, the same build's, while it fetches the .wasm), then a Peer on
// the worker's scope. A call that arrives while it loads waits in the
// worker until its endpoint exists.
import init, { Peer, selfTransport } from "/pkg/wiggum_rpc.js";

await init({ module_or_path: "/pkg/wiggum_rpc_bg.wasm" });
const peer = new Peer(selfTransport());
peer.method("add", ([a, b]) => a + b);
