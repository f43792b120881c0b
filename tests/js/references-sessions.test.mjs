// Functions and objects by reference over real WebSockets on 127.0.0.1, on
// the package's references flavour (pkg/references/node/): a hub client's
// callback and a hub object's stub survive a socket killed and resumed in
// its session; a session that ends fails every stub on both sides and
// empties both tables.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { WebSocket, WebSocketServer } from "ws";

// A call that never settles fails its test, not the suite: each test ends by this bound.
const TEST_TIMEOUT = 60_000;

const require = createRequire(import.meta.url);
const build = "../../pkg/references/node";
const { Peer, ErrorCode } = require(`${build}/wiggum_rpc.cjs`);
const { webSocketTransport } = require(`${build}/websocket.cjs`);
const { Hub } = require(`${build}/hub.cjs`);
const { reference, referencesHeld } = require(`${build}/remote.cjs`);

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const RECONNECT = { initialDelay: 20, maxDelay: 100, jitter: 0 };

let wss;
let url;

before(async () => {
  wss = new WebSocketServer({ host: "127.0.0.1", port: 0 });
  await new Promise((resolve, reject) => wss.once("listening", resolve).once("error", reject));
  url = `ws://127.0.0.1:${wss.address().port}/`;
});

after(async () => {
  for (const socket of wss.clients) socket.terminate();
  await new Promise((resolve) => wss.close(resolve));
});

async function until(condition, what, ms = 5000) {
  for (let waited = 0; !(await condition()); waited += 5) {
    if (waited > ms) assert.fail(`timed out waiting for ${what}`);
    await sleep(5);
  }
}

/** A hub that keeps the callback it is given and hands out a project by reference. */
function serving(options) {
  const hub = new Hub().attach(wss, options);
  const kept = new Map();
  hub.method("watch", ([onChange], context) => {
    kept.set(context?.client ?? "only", onChange);
    return true;
  });
  const files = new Map();
  hub.method("openProject", () => reference({
    write: (path, text) => files.set(path, text).size,
    read: (path) => files.get(path),
  }));
  return { hub, kept };
}

async function client(options) {
  const transport = webSocketTransport(url, { WebSocket, reconnect: RECONNECT, ...options });
  const peer = new Peer(transport, { timeout: 10_000 });
  await until(() => peer.session !== undefined, "the session granted");
  return { peer, transport };
}

test("a socket killed and resumed in its session: the hub's stub of the client's callback and the client's stub of a hub object both still work", { timeout: TEST_TIMEOUT }, async () => {
  const { hub, kept } = serving();
  const { peer, transport } = await client();
  try {
    await until(() => hub.clients.length === 1, "the client");
    const [id] = hub.clients;
    const seen = [];
    assert.equal(await peer.request("watch", [reference((n) => seen.push(n))]), true);
    const project = await peer.request("openProject");
    assert.equal(await project.write("a.ts", "1"), 1);
    const onChange = [...kept.values()][0];
    assert.equal(await onChange(1), 1);

    const away = new Promise((resolve) => transport.on("close", resolve));
    const back = new Promise((resolve) => away.then(() => transport.on("open", resolve)));
    for (const socket of wss.clients) socket.terminate();
    await away;
    // Called while the socket is down: held in the session, delivered once it is back.
    const whileAway = onChange(2);
    const readAway = project.read("a.ts");
    await back;
    assert.equal(await whileAway, 2);
    assert.equal(await readAway, "1");
    assert.deepEqual(hub.clients, [id], "the same client, resumed");
    assert.equal(await onChange(3), 3);
    assert.equal(await project.write("b.ts", "2"), 2);
    assert.deepEqual(seen, [1, 2, 3], "each call back ran once, in order");

    assert.equal(onChange.release(), true);
    assert.equal(project.release(), true);
    const hubSide = hub.peer(id);
    await until(() => referencesHeld(peer).join() === "0,0" && referencesHeld(hubSide).join() === "0,0", "both tables empty");
  } finally {
    peer.destroy();
    hub.destroy();
  }
});

test("a session past its grace: every stub on both sides fails CONNECTION_CLOSED, both tables empty", { timeout: TEST_TIMEOUT }, async () => {
  const { hub, kept } = serving({ sessions: { grace: 200 } });
  // Redials only after the grace.
  const { peer, transport } = await client({ reconnect: { initialDelay: 600, jitter: 0 } });
  try {
    await until(() => hub.clients.length === 1, "the client");
    const [id] = hub.clients;
    const hubSide = hub.peer(id);
    let called = 0;
    await peer.request("watch", [reference(() => ++called)]);
    const project = await peer.request("openProject");
    const onChange = [...kept.values()][0];
    assert.equal(await onChange(), 1);
    assert.deepEqual(referencesHeld(peer), [1, 1]);
    assert.deepEqual(referencesHeld(hubSide), [1, 1]);

    const ended = new Promise((resolve) => transport.on("sessionend", resolve));
    for (const socket of wss.clients) socket.terminate();
    await ended;
    assert.equal(await project.read("a.ts").then(() => "answered", (error) => error.code), ErrorCode.CONNECTION_CLOSED);
    assert.equal(await onChange().then(() => "answered", (error) => error.code), ErrorCode.CONNECTION_CLOSED);
    assert.equal(called, 1, "the callback ran no more");
    assert.deepEqual(referencesHeld(peer), [0, 0]);
    assert.deepEqual(referencesHeld(hubSide), [0, 0]);
    // A new session after the reconnect starts with nothing held.
    await until(() => peer.session !== undefined && hub.clients.length === 1 && hub.clients[0] !== id, "a new session");
    assert.deepEqual(referencesHeld(peer), [0, 0]);
  } finally {
    peer.destroy();
    hub.destroy();
  }
});
