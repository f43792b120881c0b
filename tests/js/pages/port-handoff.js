// The page of docs/guide/message-channel.md, "Handing a port to a worker":
// the port goes to the worker the moment it is made, with a message of the
// page's own, and the call goes at once with no timeout. The worker is the
// bundled one (tests/js/port-handoff/worker.js, at /vendor/port-handoff-worker.js).
// Runs in a page with the web build loaded as `window.lib`.
export async function handOffPort() {
  const { Peer, portTransport } = window.lib;
  const started = performance.now();
  const worker = new Worker("/vendor/port-handoff-worker.js", { type: "module" });
  const { port1, port2 } = new MessageChannel();
  worker.postMessage({ type: "connect", port: port2 }, [port2]);
  worker.postMessage({ type: "count" });
  worker.postMessage({ type: "count" });
  const ralph = new Peer(portTransport(port1));
  // timeout 0 as printed; the test's own timeout is the bound.
  const summary = await ralph.request("sendTask", { id: "t1", title: "the task" }, { timeout: 0 });
  const ms = Math.round(performance.now() - started);
  const seen = await new Promise((resolve) => {
    worker.addEventListener("message", ({ data }) => data?.type === "seen" && resolve(data.seen));
    worker.postMessage({ type: "how-many" });
  });
  ralph.destroy();
  worker.terminate();
  return { summary, seen, ms };
}
