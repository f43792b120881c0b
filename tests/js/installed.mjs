// What the install-path tests share: a WebSocket server made of the package
// as an app installed it (its Node build, `wiggum-rpc/websocket`, and `ws`),
// serving `mul` to the pages under test.
import { once } from "node:events";
import { createRequire } from "node:module";
import { join } from "node:path";

/** Serves `mul` over WebSocket on 127.0.0.1 with the package installed in `app`; resolves with its URL and `close()`. */
export async function serveMulOverWebSocket(app) {
  const required = createRequire(join(app, "package.json"));
  const { Peer } = required("wiggum-rpc");
  const { webSocketTransport } = required("wiggum-rpc/websocket");
  const { WebSocketServer } = required("ws");
  const wss = new WebSocketServer({ host: "127.0.0.1", port: 0 });
  wss.on("connection", (socket) => new Peer(webSocketTransport(socket)).method("mul", ([a, b]) => a * b));
  await once(wss, "listening");
  return { url: `ws://127.0.0.1:${wss.address().port}`, close: () => wss.close() };
}
