// Cold start, wiggum-rpc bundled, the .wasm fetched and compiled in the
// worker whatever its page offers: `init()` given the fetch's response asks
// the page for nothing (a page that is not wiggum-rpc, or not the same build,
// never answers the question either).
import init, { Peer, selfTransport } from "/pkg/wiggum_rpc.js";

await init({ module_or_path: fetch("/pkg/wiggum_rpc_bg.wasm") });
const peer = new Peer(selfTransport());
peer.method("add", ([a, b]) => a + b);
