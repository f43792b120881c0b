// The page of the browser otel test: a traced Peer toward its worker; the
// user action is a `build` call, which the worker relays to the hub, which
// calls another client. Resolves with the page's and the worker's spans.
import init, { Peer, workerTransport } from "/pkg/wiggum_rpc.js";
import { instrument } from "/pkg/otel.js";
import { startTracing } from "./tracing.js";

export async function run(url) {
  await init();
  const spans = startTracing("page");
  const worker = new Worker("/otel/worker.js", { type: "module" });
  const toWorker = instrument(new Peer(workerTransport(worker, { handshake: "wait" })));
  try {
    await toWorker.request("connect", [url]);
    const html = await toWorker.request("build", ["home"]);
    const failed = await toWorker.request("build", ["missing"]).then(() => undefined, (error) => error.code);
    const all = [...spans(), ...(await toWorker.request("spans"))].filter((span) => span.name === "build" || span.name === "relay");
    return { html, failed, spans: all };
  } finally {
    toWorker.destroy();
    worker.terminate();
  }
}
