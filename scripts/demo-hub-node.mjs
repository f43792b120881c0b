// One process of the demo's WebSocket server (scripts/demo-hub.mjs forks
// two, behind its round-robin proxy at `/ws`): a `ws` server on a free port
// of 127.0.0.1 with a `Hub` (wiggum-rpc/hub, from the web build the page
// loads, pkg-web/) joined to the other process's on Redis. It serves
// `whoami`, `clients`, `slow` (a call that takes its time), `drop` (the
// proxy cuts every connection, as a network that fails would: a page's
// session survives it, though its redial lands on the other process) and
// `restart` (this process is replaced, as a deploy would: its sessions are
// gone). Connections and disconnections are pushed to every page.
//
//   node scripts/demo-hub-node.mjs <name> [<redis url>]   (forked: it talks to its parent over IPC)
import { readFile } from "node:fs/promises";
import { WebSocketServer } from "ws";
import init from "../pkg-web/wiggum_rpc.js";
import { Hub } from "../pkg-web/hub.js";

const [name, url] = process.argv.slice(2);
await init({ module_or_path: await readFile(new URL("../pkg-web/wiggum_rpc_bg.wasm", import.meta.url)) });
// Without Redis (no redis-server here), one process alone.
const cluster = url === undefined ? undefined : (await import("../js/entries/redis.js")).redisCluster({ url, node: name, lease: 2000, prefix: "demo" });
const hub = new Hub({ cluster });
const wss = new WebSocketServer({ host: "127.0.0.1", port: 0 });
hub.attach(wss);
const push = () => hub.notifyAll("clients", { clients: hub.clients });
hub.on("connection", push);
hub.on("disconnection", push);
hub.method("whoami", (params, { client }) => client);
hub.method("clients", () => hub.clients);
hub.method("slow", ([ms]) => new Promise((resolve) => setTimeout(() => resolve(`answered after ${ms} ms`), ms)));
// After the answer has gone: the parent acts.
hub.method("drop", () => {
  setTimeout(() => process.send({ drop: true }), 50);
  return { clients: hub.clients.length };
});
hub.method("restart", () => {
  setTimeout(() => process.send({ restart: name }), 50);
  return { clients: hub.clients.length };
});

await new Promise((resolve) => wss.once("listening", resolve));
await cluster?.ready;
// Replaced: its pages are told (1012, service restart) and the others that its clients are gone.
process.on("SIGTERM", async () => {
  for (const socket of wss.clients) socket.close(1012, "server restart");
  hub.destroy();
  await cluster?.closed;
  wss.close();
  process.exit(0);
});
process.send({ ready: { port: wss.address().port } });
