// The other side of the "end noticed" tests, in a worker or a frame: it
// serves `ping`, `hang` (never answered) and, on `destroy`, destroys its
// endpoint. In a worker it may also be handed a port to serve on, which
// `close port` closes by hand.
import init, { Peer, portTransport, selfTransport, windowTransport } from "/pkg/wiggum_rpc.js";

// A port handed over while the module loads is kept (it is not JSON-RPC: the early inbox leaves it).
const ports = [];
let serving = false;
const serve = (transport, port) => {
  const peer = new Peer(transport);
  peer.method("ping", () => "pong");
  peer.method("hang", () => new Promise(() => {}));
  peer.onNotify("destroy", () => setTimeout(() => peer.destroy(), 0));
  // Not the way to end a side: no event tells the other side (the docs say so).
  if (port) peer.onNotify("close port", () => setTimeout(() => port.close(), 0));
  return peer;
};
if (typeof window === "undefined") {
  self.addEventListener("message", ({ data }) => {
    if (data?.type !== "port") return;
    if (serving) serve(portTransport(data.port), data.port);
    else ports.push(data.port);
  });
}
await init();
serving = true;
if (typeof window === "undefined") {
  serve(selfTransport());
  for (const port of ports) serve(portTransport(port), port);
} else {
  serve(windowTransport(window.parent, window, location.origin));
}
