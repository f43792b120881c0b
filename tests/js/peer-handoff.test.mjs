// A server Peer's session handed to another Peer (the Node build's
// `Peer.handOff()`, what a hub process does as it leaves), over real
// WebSockets on 127.0.0.1: one `ws` server whose first connection is served
// by one Peer and whose next by another, which takes over the session the
// first handed off as JSON text. Bad handed sessions are refused.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { WebSocket, WebSocketServer } from "ws";

const require = createRequire(import.meta.url);
const { Peer, ErrorCode } = require("../../pkg/node/wiggum_rpc.cjs");
const { webSocketTransport } = require("../../pkg/node/websocket.cjs");

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
/** Quick redials: the next connection may come before the session is handed over, or after. */
const RECONNECT = { initialDelay: 20, maxDelay: 100, jitter: 0 };

let wss;
let url;
/** What the server does with its next connection. */
let onConnection;

before(async () => {
  wss = new WebSocketServer({ host: "127.0.0.1", port: 0 });
  await new Promise((resolve) => wss.once("listening", resolve));
  url = `ws://127.0.0.1:${wss.address().port}/`;
  wss.on("connection", (socket) => onConnection(socket));
});

after(async () => {
  for (const socket of wss.clients) socket.terminate();
  await new Promise((resolve) => wss.close(resolve));
});

async function until(condition, what, ms = 5000) {
  for (let waited = 0; !condition(); waited += 5) {
    if (waited > ms) assert.fail(`timed out waiting for ${what}`);
    await sleep(5);
  }
}

/**
 * A server Peer on `socket`, with the session `session`, serving `held`
 * (answered once the test opens `gate`) and `where`; `early`, frames that
 * came before it was made, delivered first.
 */
function serverPeer(socket, session, name, runs, gate, early = []) {
  const transport = webSocketTransport(socket);
  transport.session = session;
  const peer = new Peer(transport, { timeout: 5000 });
  peer.method("held", async ({ tag }) => {
    runs.push(`${name} ${tag}`);
    await gate;
    return { tag, by: name };
  });
  peer.method("where", () => name);
  for (const data of early) transport.deliver(data);
  return peer;
}

test("a session handed to another Peer as JSON text: the call in flight answered once, pushes made while away in order, the client's calls go on there, the old Peer's own call fails", async () => {
  const runs = [];
  let open;
  const gate = new Promise((resolve) => (open = resolve));
  let first;
  onConnection = (socket) => {
    first = serverPeer(socket, { id: "session-handed-1", grace: 10_000, maxKept: 100 }, "first", runs, gate);
  };
  const transport = webSocketTransport(url, { WebSocket, reconnect: RECONNECT });
  const client = new Peer(transport, { timeout: 10_000 });
  const pushes = [];
  client.onNotify("push", ({ seq }) => pushes.push(seq));
  client.method("ask", () => "answered");
  const ended = [];
  client.on("sessionend", () => ended.push(true));
  await until(() => client.session === "session-handed-1", "the session granted");
  assert.equal(await client.request("where"), "first");
  assert.throws(() => new Peer({ send() {}, onMessage() {} }).handOff(), (error) => error.data?.reason === "no-session");

  // The client's next connection waits for the session, whenever it comes: what it sends meanwhile is kept for the Peer that takes it.
  let handOver;
  const handed = new Promise((resolve) => (handOver = resolve));
  let second;
  onConnection = (socket) => {
    const early = [];
    const hold = (event) => early.push(event.data);
    socket.addEventListener("message", hold);
    handed.then((text) => {
      socket.removeEventListener("message", hold);
      const session = JSON.parse(text);
      second = serverPeer(socket, { id: session.id, handed: session }, "second", runs, gate, early);
    });
  };
  const inFlight = client.request("held", { tag: "in flight" });
  await until(() => runs.length === 1, "the call to start");
  const away = new Promise((resolve) => transport.on("close", resolve));
  for (const socket of wss.clients) socket.terminate();
  await away;
  assert.throws(() => first.handOff(), (error) => error.data?.reason === "busy", "not while the call runs");
  // While the client is away: pushes, and a call of the first Peer's own.
  for (let seq = 0; seq < 5; seq++) first.notify("push", { seq });
  const own = first.request("ask");
  open();
  await until(() => {
    try {
      handOver(JSON.stringify(first.handOff()));
      return true;
    } catch (error) {
      assert.equal(error.data?.reason, "busy");
      return false;
    }
  }, "the session to be free to move");
  await assert.rejects(own, (error) => error.code === ErrorCode.CONNECTION_CLOSED, "its caller stays with the first Peer");
  first.destroy();

  assert.deepEqual(await inFlight, { tag: "in flight", by: "first" }, "answered by the Peer that ran it, delivered by the one that took over");
  await until(() => pushes.length === 5, "the pushes made while away");
  assert.deepEqual(pushes, [0, 1, 2, 3, 4]);
  assert.equal(await client.request("where"), "second", "the client's calls go to the Peer that took the session");
  assert.equal(await second.request("ask"), "answered", "the second Peer's own calls are answered");
  assert.equal(client.session, "session-handed-1", "the same session");
  assert.deepEqual(ended, [], "it never ended");
  assert.deepEqual(runs, ["first in flight"], "the call ran once");
  client.destroy();
  second.destroy();
});

test("a transport whose session.handed is no handed session: the Peer is not made, and a good one still is", () => {
  const good = {
    id: "session-handed-2", grace: 1000, maxKept: 10, sent: 1, received: 0, nextCall: 1,
    unacked: [{ jsonrpc: "2.0", method: "push", params: { seq: 0 } }], held: [],
  };
  const open = (handed) => new Peer({ send() {}, onMessage() {}, session: { id: "session-handed-2", handed } });
  const bad = [
    null, "text", {}, { ...good, id: 7 }, { ...good, sent: -1 }, { ...good, grace: "long" }, { ...good, nextCall: 1.5 },
    { ...good, unacked: ["text"] }, { ...good, held: [[]] }, { ...good, held: [[1]] }, { ...good, unacked: {} },
    // More unacknowledged than ever sent: the core refuses it.
    { ...good, sent: 0 }, { ...good, id: "" },
  ];
  for (const handed of bad) assert.throws(() => open(handed), TypeError, JSON.stringify(handed));
  const peer = open(good);
  assert.equal(typeof peer.handOff, "function");
  peer.destroy();
});
