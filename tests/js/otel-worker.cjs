// The worker of tests/js/otel.test.mjs: a Peer toward its page and one
// toward the hub over a WebSocket, both traced with its own SDK; `build`
// relays to the hub from the handler, so its client span is the child of
// the page's call.
const { workerData } = require("node:worker_threads");
const { WebSocket } = require("ws");
const { Peer, selfTransport } = require("../../pkg/node/wiggum_rpc.cjs");
const { webSocketTransport } = require("../../pkg/node/websocket.cjs");
const { instrument } = require("../../pkg/node/otel.cjs");
const { exportedSpans, startTracing } = require("./otel-setup.cjs");

const exporter = startTracing("worker");
const hub = instrument(new Peer(webSocketTransport(workerData.url, { WebSocket, handshake: "announce" })));
const opened = new Promise((resolve) => hub.on("open", resolve));
const page = instrument(new Peer(selfTransport()));
page.method("ready", async () => {
  await opened;
  // The hub's answer to the hello: metadata crosses from then on.
  await new Promise((resolve) => setTimeout(resolve, 50));
  return true;
});
page.method("build", (params) => hub.request("relay", params));
page.method("spans", () => exportedSpans(exporter));
