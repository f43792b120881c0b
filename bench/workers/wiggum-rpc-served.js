// Cold start, wiggum-rpc without a bundler: the web build's files as served
// (the glue and its snippets, one request each), the .wasm fetched and
// compiled in the worker, then a Peer on the worker's scope.
import init, { Peer, selfTransport } from "/pkg/wiggum_rpc.js";

await init();
const peer = new Peer(selfTransport());
peer.method("add", ([a, b]) => a + b);
