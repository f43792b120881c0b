// One process of the demo's WebSocket server (scripts/demo-hub.mjs forks
// two, behind its round-robin proxy at `/ws`): a `ws` server on a free port
// of 127.0.0.1 with a `Hub` (wiggum-rpc/hub, from the Node build:
// `scripts/build.sh node`) joined to the other process's on Redis. It
// serves `whoami`, `clients`, `slow` (a call that takes its time), `drop`
// (the proxy cuts every connection, as a network that fails would: a page's
// session survives it, though its redial lands on the other process) and
// `restart` (this process is replaced, as a deploy would: it hands its
// sessions over to the other, and its pages keep them). Connections and
// disconnections are pushed to every page.
//
//   node scripts/demo-hub-node.mjs <name> [<redis url>]   (forked: it talks to its parent over IPC)
import { createRequire } from "node:module";
import { WebSocketServer } from "ws";

const require = createRequire(import.meta.url);
const { Hub } = require("../target/pkg-node/hub.cjs");

const [name, url] = process.argv.slice(2);
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
// Replaced (SIGTERM): its pages' sessions are handed over to the other
// process (each page redials there, 1012); alone, or when the demo stops
// (SIGINT), its pages are told (1012) and their sessions end.
const leave = async (handOff) => {
  if (handOff && cluster !== undefined) await hub.handOff({ wait: 5000 });
  for (const socket of wss.clients) socket.close(1012, "server restart");
  hub.destroy();
  await cluster?.closed;
  wss.close();
  process.exit(0);
};
process.on("SIGTERM", () => leave(true));
process.on("SIGINT", () => leave(false));
process.send({ ready: { port: wss.address().port } });
