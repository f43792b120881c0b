// Node, ES module: code written for `wiggum-rpc/web` (init, then use) runs in Node too.
import init, { compiledModule, ErrorCode, Peer, portTransport } from "wiggum-rpc/web";

await init();
const { port1, port2 } = new MessageChannel();
const caller = new Peer(portTransport(port1));
const server = new Peer(portTransport(port2));
server.method("add", ([a, b]) => a + b);
const sum = await caller.request("add", [2, 3]);
const missing = await caller.request("nope").catch((error) => error.code === ErrorCode.METHOD_NOT_FOUND);
if (!(compiledModule() instanceof WebAssembly.Module)) throw new Error("compiledModule() gave no module");
caller.destroy();
server.destroy();
console.log(JSON.stringify({ sum, missing }));
