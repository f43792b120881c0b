// A hub across processes on Redis, measured (a benchmark, not a test: it
// never fails on speed): a call to a client connected to another process
// against one connected to the caller's own (p50 and p99 latency, calls/s),
// and a notification to 1,000 clients spread over three processes against
// 1,000 on one (until the last client has it); a process that leaves
// handing its clients' sessions over to another (until every session has
// moved). One redis-server of its own on 127.0.0.1, hub processes of
// tests/js/cluster-node.mjs, and a TCP proxy in front of them.
//
//   node bench/cluster.mjs            full run
//   node bench/cluster.mjs --smoke    a few calls and clients, to prove it still works
import { createRequire } from "node:module";
import { WebSocket } from "ws";
import { end, startNode, startProxy, startRedis, until, within } from "../tests/js/cluster-kit.mjs";

const require = createRequire(import.meta.url);
const { Peer } = require("../pkg/node/wiggum_rpc.cjs");
const { webSocketTransport } = require("../pkg/node/websocket.cjs");

const smoke = process.argv.includes("--smoke");
const CALLS = smoke ? 50 : 3000;
const CLIENTS = smoke ? 30 : 1000;
const ROUNDS = smoke ? 2 : 5;
const SESSIONS = smoke ? 10 : 200;
const LEASE = 5000;

async function client(node, onTick) {
  const transport = webSocketTransport(`ws://127.0.0.1:${node.port}/`, { WebSocket, reconnect: false });
  const peer = new Peer(transport, { timeout: 30_000 });
  peer.method("echo", ([n]) => n);
  if (onTick) peer.onNotify("tick", onTick);
  await within(new Promise((resolve) => (transport.connected ? resolve() : peer.on("open", resolve))), 10_000, "a client to connect");
  return { peer, id: await peer.request("whoami") };
}

const quantile = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
const ms = (value) => `${value.toFixed(3)} ms`;

function latencyRow(name, took) {
  const sorted = [...took].sort((x, y) => x - y);
  const total = took.reduce((sum, one) => sum + one, 0);
  return { name, p50: quantile(sorted, 0.5), p99: quantile(sorted, 0.99), rate: (took.length / total) * 1000 };
}

/** Sends one notification to all from `sender` and waits until every client has it: ms until the last. */
async function notifyAll(sender, heard, count) {
  heard.length = 0;
  const at = await sender.order("notifyAllAt", { method: "tick" });
  await until(() => heard.length >= count, "every client notified", 30_000);
  return Math.max(...heard) - at;
}

const redis = await startRedis();
const nodes = [];
const clients = [];
try {
  for (const name of ["node-a", "node-b", "node-c"]) {
    const node = await startNode(redis, LEASE, name);
    nodes.push(node);
    await node.order("joined");
  }
  const [a, b, c] = nodes;
  const target = await client(a);
  clients.push(target);
  await until(async () => (await b.order("clients")).length === 1, "node-b to see the client");

  // Warm up both paths, then alternate them so that the machine's load falls on both alike.
  await a.order("timed", { client: target.id, method: "echo", count: 100 });
  await b.order("timed", { client: target.id, method: "echo", count: 100 });
  const same = [];
  const across = [];
  for (let round = 0; round < ROUNDS; round++) {
    same.push(...(await a.order("timed", { client: target.id, method: "echo", count: CALLS / ROUNDS }, 120_000)));
    across.push(...(await b.order("timed", { client: target.id, method: "echo", count: CALLS / ROUNDS }, 120_000)));
  }
  const rows = [latencyRow("same process", same), latencyRow("another process", across)];
  console.log(`\n### A call to a client, sequential (${CALLS} calls each)\n`);
  console.log("| the caller's hub is on | p50 | p99 | calls/s |\n| --- | ---: | ---: | ---: |");
  for (const row of rows) console.log(`| ${row.name} | ${ms(row.p50)} | ${ms(row.p99)} | ${Math.round(row.rate)} |`);
  console.log(`\nanother process ÷ same process: p50 ${(rows[1].p50 / rows[0].p50).toFixed(2)}×, p99 ${(rows[1].p99 / rows[0].p99).toFixed(2)}×`);

  // A notification to CLIENTS clients: all on node-a, then spread over the three.
  target.peer.destroy();
  clients.length = 0;
  const heard = [];
  const onTick = () => heard.push(performance.timeOrigin + performance.now());
  const results = {};
  for (const [layout, homes] of [["one process", [a]], ["three processes", [a, b, c]]]) {
    for (let n = 0; n < CLIENTS; n++) clients.push(await client(homes[n % homes.length], onTick));
    await until(async () => (await a.order("clients")).length === CLIENTS, `node-a to list ${CLIENTS} clients`, 60_000);
    await notifyAll(a, heard, CLIENTS);
    const times = [];
    for (let round = 0; round < ROUNDS; round++) times.push(await notifyAll(a, heard, CLIENTS));
    times.sort((x, y) => x - y);
    results[layout] = times[Math.floor(times.length / 2)];
    for (const one of clients.splice(0)) one.peer.destroy();
    await until(async () => (await a.order("clients")).length === 0, "the clients gone", 60_000);
  }
  console.log(`\n### A notification to ${CLIENTS} clients, until the last has it (median of ${ROUNDS})\n`);
  console.log("| the clients are on | until the last |\n| --- | ---: |");
  for (const [layout, took] of Object.entries(results)) console.log(`| ${layout} | ${ms(took)} |`);
  console.log(`\nthree processes ÷ one: ${(results["three processes"] / results["one process"]).toFixed(2)}×`);

  // SESSIONS clients with sessions on node-d, behind a proxy; the proxy turns to node-e and node-d hands over.
  const granting = [];
  for (const name of ["node-d", "node-e"]) {
    const node = await startNode(redis, LEASE, name, ["60000"]);
    nodes.push(node);
    granting.push(node);
    await node.order("joined");
  }
  const [d, e] = granting;
  const proxy = await startProxy(d.port);
  try {
    const redial = { initialDelay: 20, maxDelay: 200, jitter: 0 };
    for (let n = 0; n < SESSIONS; n++) {
      const transport = webSocketTransport(`ws://127.0.0.1:${proxy.port}/`, { WebSocket, reconnect: redial });
      const peer = new Peer(transport, { timeout: 30_000 });
      await until(() => peer.session !== undefined, "a session granted");
      clients.push({ peer, id: await peer.request("whoami") });
    }
    proxy.moveTo(e);
    const started = performance.now();
    const result = await d.order("handOff", { wait: 30_000 }, 60_000);
    const handed = performance.now() - started;
    await Promise.all(clients.map(({ peer }) => peer.request("whoami")));
    const served = performance.now() - started;
    console.log(`\n### A process that leaves hands ${SESSIONS} sessions over to another\n`);
    console.log("| | |\n| --- | ---: |");
    console.log(`| sessions handed over (kept: ended with the process) | ${result.handed} (kept ${result.kept}) |`);
    console.log(`| until every session has moved | ${ms(handed)} |`);
    console.log(`| until every client has been answered again | ${ms(served)} |`);
    console.log(`| sessions moved per second | ${Math.round((SESSIONS / handed) * 1000)} |`);
  } finally {
    await proxy.close();
  }
} finally {
  await end(nodes, clients);
  await redis.stop();
}
