// The worker of docs/guide/message-channel.md, "Handing a port to a worker",
// as a bundler builds it: the package's import waits for its .wasm before
// this code runs, and the page's hand-off message has come by then.
import { Peer, portTransport } from "wiggum-rpc";

self.addEventListener("message", ({ data }) => {
  if (data?.type !== "connect" || !(data.port instanceof MessagePort)) return;
  const chief = new Peer(portTransport(data.port));
  chief.method("sendTask", (task) => `done: ${task.title}`);
});

// A message of the page's own after the hand-off: it comes in order, once.
let seen = 0;
self.addEventListener("message", ({ data }) => {
  if (data?.type === "count") seen++;
  if (data?.type === "how-many") self.postMessage({ type: "seen", seen });
});
