// A module worker serving the fixture methods over selfTransport. Named
// "delay=ms", it loads wasm, then waits before creating its server, to show
// that requests sent meanwhile are not lost. (Options travel in the worker's
// name: the test runner wraps worker scripts, which drops a query string.)
import init, { JSONRPCClient, Peer, RPCError, selfTransport, transfer } from "/pkg/wiggum_rpc.js";
import { serveFixtures } from "/tests/browser/methods.js";

const options = new URLSearchParams(self.name);
await init();
const delay = Number(options.get("delay") || 0);
if (delay > 0) await new Promise((resolve) => setTimeout(resolve, delay));

// With "two": a client made first, then the server, in the same turn.
const caller = options.get("two") ? new JSONRPCClient(selfTransport()) : undefined;
const peer = new Peer(selfTransport());
serveFixtures(peer, { RPCError, transfer });
peer.method("askMain", async ([a, b]) => (caller ?? peer).request("add", [a, b]));
