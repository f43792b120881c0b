// The demo's WebSocket server: page ↔ server, served at `/ws` beside the
// demo page by scripts/serve.mjs. One `Hub` (wiggum-rpc/hub, from the same
// web build the page loads, pkg-web/) holds every page that connects: `whoami`, `clients`, and `restart`, which
// closes every connection and refuses new ones for a moment, as a server
// restart would. Each connection and disconnection is pushed to every page
// as a `clients` notification.
import { readFile } from "node:fs/promises";
import { WebSocketServer } from "ws";
import init from "../pkg-web/wiggum_rpc.js";
import { Hub } from "../pkg-web/hub.js";

/** The `/ws` endpoint: `upgrade(request, socket, head)` for the HTTP server, and `close()`. */
export async function demoHub() {
  await init({ module_or_path: await readFile(new URL("../pkg-web/wiggum_rpc_bg.wasm", import.meta.url)) });
  const wss = new WebSocketServer({ noServer: true });
  const hub = new Hub().attach(wss);
  let restart;
  const push = () => hub.notifyAll("clients", { clients: hub.clients });
  hub.on("connection", push);
  hub.on("disconnection", push);
  hub.method("whoami", (params, { client }) => client);
  hub.method("clients", () => hub.clients);
  hub.method("restart", () => {
    // After the answer has gone: every connection ends, as the process's would.
    restart = setTimeout(() => {
      for (const socket of wss.clients) socket.close(1012, "server restart");
    }, 50);
    return { clients: hub.clients.length };
  });
  return {
    upgrade(request, socket, head) {
      wss.handleUpgrade(request, socket, head, (ws) => wss.emit("connection", ws, request));
    },
    async close() {
      clearTimeout(restart);
      hub.destroy();
      for (const socket of wss.clients) socket.terminate();
      await new Promise((done) => wss.close(done));
    },
  };
}
