// The worker's side: the page's module, instantiated; then a server on its scope.
import init, { Peer, selfTransport } from "wiggum-rpc/web";

const module = await new Promise((resolve) => self.addEventListener("message", ({ data }) => resolve(data), { once: true }));
await init({ module_or_path: module });
const peer = new Peer(selfTransport());
peer.method("add", ([a, b]) => a + b);
peer.method("wasmFetched", () => performance.getEntriesByType("resource").filter(({ name }) => name.endsWith(".wasm")).length);
