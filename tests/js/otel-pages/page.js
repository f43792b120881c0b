// The page of the browser otel test: a traced Peer toward its worker; the
// user action is a `build` call, which the worker relays to the hub, which
// calls another client. Resolves with the page's and the worker's spans.
import init, { Peer, workerTransport } from "/pkg/wiggum_rpc.js";
import { instrument } from "/pkg/otel.js";
import { startTracing } from "./tracing.js";

export async function run(url) {
  await init();
  const spans = startTracing("page");
  // The worker built beside this page (against the same OpenTelemetry).
  const worker = new Worker(new URL("./worker.js", import.meta.url), { type: "module" });
  const toWorker = instrument(new Peer(workerTransport(worker, { handshake: "wait" })));
  try {
    await toWorker.request("connect", [url]);
    const html = await toWorker.request("build", ["home"]);
    const failed = await toWorker.request("build", ["missing"]).then(() => undefined, (error) => error.code);
    const all = [...(await spans()), ...(await toWorker.request("spans"))].filter((span) => span.name === "build" || span.name === "relay");
    // The API the page runs on: its global registration names its version.
    const api = globalThis[Symbol.for("opentelemetry.js.api.1")]?.version;
    return { html, failed, spans: all, api };
  } finally {
    toWorker.destroy();
    worker.terminate();
  }
}
