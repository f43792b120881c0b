// A worker that loads the web build as a worker of its own would: `init()`
// with the .wasm's path (from its URL's `wasm` parameter), which asks the
// page for its compiled module while it fetches. It serves `add`.
import init, { Peer, selfTransport } from "/pkg/wiggum_rpc.js";

await init({ module_or_path: new URL(location.href).searchParams.get("wasm") });
const peer = new Peer(selfTransport());
peer.method("add", ([a, b]) => a + b);
