// Node, CommonJS: `require("wiggum-rpc/websocket")`, a Peer on each end of a
// real `ws` WebSocket on 127.0.0.1; the sum through `remote()` and the
// server's methods through `expose()` (`require("wiggum-rpc/remote")`).
const { Peer, ErrorCode, RPCError } = require("wiggum-rpc");
const { webSocketTransport } = require("wiggum-rpc/websocket");
require("wiggum-rpc/remote");
const { WebSocket, WebSocketServer } = require("ws");

const wss = new WebSocketServer({ host: "127.0.0.1", port: 0 });
wss.on("connection", (socket) => {
  const server = new Peer(webSocketTransport(socket));
  server.expose({ add: (a, b) => a + b }, "math");
});
wss.on("listening", async () => {
  const caller = new Peer(webSocketTransport(`ws://127.0.0.1:${wss.address().port}`, { WebSocket }));
  const sum = await caller.remote().math.add(2, 3);
  const missing = await caller.request("nope").catch((error) => error instanceof RPCError && error.code === ErrorCode.METHOD_NOT_FOUND);
  caller.destroy();
  wss.close();
  console.log(JSON.stringify({ sum, missing }));
});
