// A Node worker_threads worker on the package's Node build (node-workers.test.mjs):
// it serves on `selfTransport()` or `portTransport(parentPort)` as its
// workerData says, and on any port the main thread hands it.
const { parentPort, workerData } = require("node:worker_threads");
const { Peer, portTransport, selfTransport } = require("../../../pkg/node/wiggum_rpc.cjs");

const serve = (transport) => {
  const peer = new Peer(transport);
  peer.method("add", ([a, b]) => a + b);
  peer.method("hang", () => new Promise(() => {}));
  peer.method("length", ([buffer]) => buffer.byteLength);
  peer.method("serve port", ([port]) => {
    serve(portTransport(port));
    return "serving";
  });
  return peer;
};
serve(workerData.transport === "parentPort" ? portTransport(parentPort) : selfTransport());
