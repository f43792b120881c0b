// Node, ES module: `import … from "wiggum-rpc/websocket"`, a Peer on each end
// of a real `ws` WebSocket on 127.0.0.1; the sum streamed in chunks through
// `stream()` (`import "wiggum-rpc/stream"`).
import { once } from "node:events";
import { ErrorCode, Peer, RPCError } from "wiggum-rpc";
import "wiggum-rpc/stream";
import { webSocketTransport } from "wiggum-rpc/websocket";
import { WebSocket, WebSocketServer } from "ws";

const wss = new WebSocketServer({ host: "127.0.0.1", port: 0 });
wss.on("connection", (socket) => {
  const server = new Peer(webSocketTransport(socket));
  server.method("add", ([a, b], { emit }) => {
    emit(a);
    emit(b);
    return a + b;
  });
});
await once(wss, "listening");
const caller = new Peer(webSocketTransport(`ws://127.0.0.1:${wss.address().port}`, { WebSocket }));
const call = caller.stream("add", [2, 3]);
const chunks = [];
for await (const chunk of call) chunks.push(chunk);
const sum = chunks.length === 2 && chunks[0] === 2 && chunks[1] === 3 ? await call.result : `chunks ${JSON.stringify(chunks)}`;
const missing = await caller.request("nope").catch((error) => error instanceof RPCError && error.code === ErrorCode.METHOD_NOT_FOUND);
caller.destroy();
wss.close();
console.log(JSON.stringify({ sum, missing }));
