// Cold start in an iframe, wiggum-rpc: its JS bundled in, the .wasm fetched
// and compiled in the frame, then a Peer toward the parent window (the
// transport's handshake holds the parent's call until the frame is ready).
import init, { Peer, windowTransport } from "/pkg/wiggum_rpc.js";

await init({ module_or_path: "/pkg/wiggum_rpc_bg.wasm" });
const peer = new Peer(windowTransport(parent, window, location.origin));
peer.method("add", ([a, b]) => a + b);
