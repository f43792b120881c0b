// Cold start, wiggum-rpc: the web build (its .wasm fetched and compiled in
// the worker), then a Peer on the worker's scope. A call that arrives while
// it loads waits in the worker's queue.
import init, { Peer, selfTransport } from "/pkg/wiggum_rpc.js";

await init();
const peer = new Peer(selfTransport());
peer.method("add", ([a, b]) => a + b);
