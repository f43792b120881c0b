// Cold start, wiggum-rpc: the web build's JS bundled into the worker (as the
// other variants' libraries are), its .wasm fetched and compiled in the
// worker (instantiateStreaming), then a Peer on the worker's scope. A call
// that arrives while it loads waits on the page until the worker is ready.
import init, { Peer, selfTransport } from "/pkg/wiggum_rpc.js";

await init({ module_or_path: "/pkg/wiggum_rpc_bg.wasm" });
const peer = new Peer(selfTransport());
peer.method("add", ([a, b]) => a + b);
