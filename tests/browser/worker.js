// A module worker serving the fixture methods over selfTransport. Named
// "delay=ms", it loads wasm, then waits before creating its server, to show
// that requests sent meanwhile are not lost. (Options travel in the worker's
// name: the test runner wraps worker scripts, which drops a query string.)
import init, { JSONRPCClient, Peer, RPCError, selfTransport, transfer, wiggumStart } from "/wasm-bindgen-test.js";
import { serveFixtures } from "/tests/browser/methods.js";

const options = new URLSearchParams(self.name);
// The test build has no default wasm path: hand it the bytes.
await init({ module_or_path: await (await fetch(new URL("/wasm-bindgen-test_bg.wasm", import.meta.url))).arrayBuffer() });
// The test build does not run the library's start function (it hands the classes the exports).
wiggumStart();
const delay = Number(options.get("delay") || 0);
if (delay > 0) await new Promise((resolve) => setTimeout(resolve, delay));

// With "two": a client made first, then the server, in the same turn.
const caller = options.get("two") ? new JSONRPCClient(selfTransport()) : undefined;
const peer = new Peer(selfTransport());
serveFixtures(peer, { RPCError, transfer });
peer.method("askMain", async ([a, b]) => (caller ?? peer).request("add", [a, b]));
