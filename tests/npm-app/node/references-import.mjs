// Node, ES module: the references flavour (`wiggum-rpc/references`), a callback passed by reference between two Peers.
import { Peer, portTransport } from "wiggum-rpc/references";
import { reference, referencesHeld } from "wiggum-rpc/references/remote";

const { port1, port2 } = new MessageChannel();
const caller = new Peer(portTransport(port1));
const server = new Peer(portTransport(port2));
server.method("add", async ([a, b, onSum]) => {
  await onSum(a + b);
  onSum.release();
  return a + b;
});
let called;
const sum = await caller.request("add", [2, 3, reference((n) => (called = n))]);
await new Promise((resolve) => setTimeout(resolve, 50));
const held = [...referencesHeld(caller), ...referencesHeld(server)];
caller.destroy();
server.destroy();
console.log(JSON.stringify({ sum, called, held }));
