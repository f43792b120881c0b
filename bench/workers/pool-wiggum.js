// A worker of the pool benchmark, wiggum-rpc's: the page's compiled module
// arrives first (the pool's `module` option), then a Peer serves the work.
import init, { Peer, selfTransport } from "/pkg/wiggum_rpc.js";
import { work } from "../pool-work.js";

const module = await new Promise((resolve) => {
  self.addEventListener("message", ({ data }) => data instanceof WebAssembly.Module && resolve(data));
});
await init({ module_or_path: module });
const peer = new Peer(selfTransport());
peer.method("work", ([rounds]) => work(rounds));
peer.method("tiny", () => 1);
