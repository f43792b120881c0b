// Node, CommonJS: `require("wiggum-rpc")`, two Peers over a MessageChannel.
const { Peer, portTransport, ErrorCode, RPCError } = require("wiggum-rpc");

const { port1, port2 } = new MessageChannel();
const caller = new Peer(portTransport(port1));
const server = new Peer(portTransport(port2));
server.method("add", ([a, b]) => a + b);
(async () => {
  const sum = await caller.request("add", [2, 3]);
  const missing = await caller.request("nope").catch((error) => error instanceof RPCError && error.code === ErrorCode.METHOD_NOT_FOUND);
  caller.destroy();
  server.destroy();
  console.log(JSON.stringify({ sum, missing }));
})();
