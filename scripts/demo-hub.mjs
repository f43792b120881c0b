// The demo's WebSocket server: page ↔ server, served at `/ws` beside the
// demo page by scripts/serve.mjs. One `Hub` (wiggum-rpc/hub, from the same
// web build the page loads, pkg-web/) holds every page that connects: `whoami`, `clients`, `slow` (a call
// that takes its time), `drop`, which kills every socket as a network that
// fails would (a page's session survives it), and `restart`, which closes
// every connection and starts a new hub, as a server restart would (its
// sessions are gone). Each connection and disconnection is pushed to every
// page as a `clients` notification.
import { readFile } from "node:fs/promises";
import { WebSocketServer } from "ws";
import init from "../pkg-web/wiggum_rpc.js";
import { Hub } from "../pkg-web/hub.js";

/** The `/ws` endpoint: `upgrade(request, socket, head)` for the HTTP server, and `close()`. */
export async function demoHub() {
  await init({ module_or_path: await readFile(new URL("../pkg-web/wiggum_rpc_bg.wasm", import.meta.url)) });
  const wss = new WebSocketServer({ noServer: true });
  let timer;
  const later = (what) => {
    // After the answer has gone.
    timer = setTimeout(what, 50);
  };
  // Ids count on across restarts, so that a page can tell it is a new client.
  let next = 0;
  const start = () => {
    const hub = new Hub().attach(wss, { authenticate: () => `client-${++next}` });
    const push = () => hub.notifyAll("clients", { clients: hub.clients });
    hub.on("connection", push);
    hub.on("disconnection", push);
    hub.method("whoami", (params, { client }) => client);
    hub.method("clients", () => hub.clients);
    hub.method("slow", ([ms]) => new Promise((resolve) => setTimeout(() => resolve(`answered after ${ms} ms`), ms)));
    hub.method("drop", () => {
      later(() => {
        for (const socket of wss.clients) socket.terminate();
      });
      return { clients: hub.clients.length };
    });
    hub.method("restart", () => {
      later(() => {
        for (const socket of wss.clients) socket.close(1012, "server restart");
        // A new process would know nothing of the old one's sessions.
        hub.destroy();
        current = start();
      });
      return { clients: hub.clients.length };
    });
    return hub;
  };
  let current = start();
  return {
    upgrade(request, socket, head) {
      wss.handleUpgrade(request, socket, head, (ws) => wss.emit("connection", ws, request));
    },
    async close() {
      clearTimeout(timer);
      current.destroy();
      for (const socket of wss.clients) socket.terminate();
      await new Promise((done) => wss.close(done));
    },
  };
}
