// The worker of the browser otel test: a Peer toward its page and one
// toward the hub over a WebSocket, both traced; `build` relays to the hub
// from the handler's synchronous part, so its client span is the child of
// the page's call.
import init, { Peer, selfTransport } from "/pkg/wiggum_rpc.js";
import { webSocketTransport } from "/pkg/websocket.js";
import { instrument } from "/pkg/otel.js";
import { startTracing } from "./tracing.js";

const spans = startTracing("worker");
await init();
const page = instrument(new Peer(selfTransport()));
let hub;
page.method("connect", async ([url]) => {
  hub = instrument(new Peer(webSocketTransport(url, { handshake: "wait" })));
  return true;
});
page.method("build", (params) => hub.request("relay", params));
page.method("spans", () => spans());
