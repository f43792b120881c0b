// A hub across processes on Redis, measured (a benchmark, not a test: it
// never fails on speed): a call to a client connected to another process
// against one connected to the caller's own (p50 and p99 latency, calls/s),
// and a notification to 1,000 clients spread over three processes against
// 1,000 on one (until the last client has it). One redis-server of its own
// on 127.0.0.1 and hub processes of tests/js/cluster-node.mjs.
//
//   node bench/cluster.mjs            full run
//   node bench/cluster.mjs --smoke    a few calls and clients, to prove it still works
import { createRequire } from "node:module";
import { WebSocket } from "ws";
import { end, startNode, startRedis, until, within } from "../tests/js/cluster-kit.mjs";

const require = createRequire(import.meta.url);
const { Peer } = require("../pkg/node/wiggum_rpc.cjs");
const { webSocketTransport } = require("../pkg/node/websocket.cjs");

const smoke = process.argv.includes("--smoke");
const CALLS = smoke ? 50 : 3000;
const CLIENTS = smoke ? 30 : 1000;
const ROUNDS = smoke ? 2 : 5;
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
} finally {
  await end(nodes, clients);
  await redis.stop();
}
