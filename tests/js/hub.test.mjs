// One server for many clients (`wiggum-rpc/hub`) in Node, over real
// WebSockets on 127.0.0.1 (the `ws` package's server, the package's own
// WebSocket transport on each client): connection and disconnection ids,
// each handler seeing its caller, notify one and all, call all with one
// client failing and one too slow, a client dropped mid-call failing only its
// own calls, and 200 clients coming and going while calls run, with nothing
// left behind; a client nobody here wrote (json-rpc-2.0 over a raw socket);
// then three clients in headless Chromium.
import { once } from "node:events";
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { WebSocket, WebSocketServer } from "ws";
import { JSONRPCServerAndClient, JSONRPCClient as StrangerClient, JSONRPCServer as StrangerServer } from "json-rpc-2.0";
import { openLibPage } from "./browser.mjs";

const require = createRequire(import.meta.url);
const { Peer, ErrorCode } = require("../../pkg/node/wiggum_rpc.cjs");
const { webSocketTransport } = require("../../pkg/node/websocket.cjs");
const { Hub } = require("../../pkg/node/hub.cjs");

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

let wss;
let url;

before(async () => {
  wss = new WebSocketServer({ host: "127.0.0.1", port: 0 });
  await new Promise((resolve) => wss.once("listening", resolve));
  url = `ws://127.0.0.1:${wss.address().port}/`;
});

after(async () => {
  for (const socket of wss.clients) socket.terminate();
  await new Promise((resolve) => wss.close(resolve));
});

/** A client Peer over a real WebSocket, open. */
async function connect(options) {
  const transport = webSocketTransport(url, { WebSocket });
  const peer = new Peer(transport, options);
  await new Promise((resolve) => (transport.connected ? resolve() : peer.on("open", resolve)));
  return peer;
}

/** Resolves once `condition()` holds (checked every 5 ms, for up to 5 s). */
async function until(condition, what) {
  for (let waited = 0; !condition(); waited += 5) {
    if (waited > 5000) assert.fail(`timed out waiting for ${what}`);
    await sleep(5);
  }
}

test("three clients: ids on connection and disconnection, each handler sees its caller, notify one and all", async () => {
  const hub = new Hub().attach(wss);
  const events = [];
  hub.on("connection", (id) => events.push(["connection", id]));
  hub.on("disconnection", (id) => events.push(["disconnection", id]));
  hub.method("whoami", (params, { client }) => client);
  const notes = [];
  hub.onNotify("note", (params, client) => notes.push([client, params.text]));
  const clients = [];
  try {
    for (let n = 0; n < 3; n++) clients.push(await connect());
    await until(() => hub.clients.length === 3, "three clients");
    const ids = hub.clients;
    assert.deepEqual(events, ids.map((id) => ["connection", id]));
    assert.equal(new Set(ids).size, 3, "distinct ids");
    const seen = await Promise.all(clients.map((client) => client.request("whoami")));
    assert.deepEqual(seen, ids, "each handler saw its own caller");
    clients[1].notify("note", { text: "from the second" });
    await until(() => notes.length === 1, "the note");
    assert.deepEqual(notes, [[ids[1], "from the second"]]);

    const heard = clients.map(() => []);
    clients.forEach((client, at) => client.onNotify("news", (params) => heard[at].push(params.headline)));
    hub.notifyAll("news", { headline: "to all" });
    assert.equal(hub.notify(ids[2], "news", { headline: "to the third" }), true);
    assert.equal(hub.notify("nobody", "news", {}), false);
    await until(() => heard[2].length === 2, "the news");
    assert.deepEqual(heard, [["to all"], ["to all"], ["to all", "to the third"]]);

    clients[0].destroy();
    await until(() => hub.clients.length === 2, "the first to leave");
    assert.deepEqual(events.at(-1), ["disconnection", ids[0]]);
  } finally {
    for (const client of clients) client.destroy();
    hub.destroy();
  }
});

test("requestAll: each client's result, one client's error and one client's timeout, by id", async () => {
  const hub = new Hub().attach(wss);
  const clients = [];
  try {
    for (let n = 0; n < 3; n++) clients.push(await connect());
    await until(() => hub.clients.length === 3, "three clients");
    const [fine, failing, slow] = hub.clients;
    clients[0].method("status", () => "ok");
    clients[1].method("status", () => {
      throw new Error("disk full");
    });
    clients[2].method("status", () => sleep(1000).then(() => "late"));
    const started = performance.now();
    const outcomes = await hub.requestAll("status", [], { timeout: 200 });
    assert.ok(performance.now() - started < 900, "the slow client did not hold the others");
    assert.deepEqual(Object.keys(outcomes), [fine, failing, slow]);
    assert.deepEqual(outcomes[fine], { result: "ok" });
    assert.equal(outcomes[failing].error.code, ErrorCode.INTERNAL_ERROR);
    assert.equal(outcomes[failing].error.message, "disk full");
    assert.equal(outcomes[slow].error.code, ErrorCode.REQUEST_TIMEOUT);
    await assert.rejects(hub.request("nobody", "status"), (error) => error.code === ErrorCode.CONNECTION_CLOSED);
  } finally {
    for (const client of clients) client.destroy();
    hub.destroy();
  }
});

test("a client dropped mid-call fails only its own calls", async () => {
  const hub = new Hub().attach(wss);
  const clients = [];
  try {
    for (let n = 0; n < 2; n++) clients.push(await connect());
    await until(() => hub.clients.length === 2, "two clients");
    const [gone, staying] = hub.clients;
    for (const client of clients) client.method("work", () => sleep(300).then(() => "done"));
    const lost = hub.request(gone, "work").then(() => "resolved", (error) => error.code);
    const kept = hub.request(staying, "work");
    await sleep(50);
    // Its socket ends without a goodbye.
    [...wss.clients][0].terminate();
    assert.equal(await lost, ErrorCode.CONNECTION_CLOSED, "the dropped client's call failed at once");
    assert.equal(await kept, "done", "the other client's call was answered");
    assert.deepEqual(hub.clients, [staying]);
  } finally {
    for (const client of clients) client.destroy();
    hub.destroy();
  }
});

test("a client nobody here wrote (json-rpc-2.0 over a plain ws socket) is a client like the others, both ways", async () => {
  const hub = new Hub().attach(wss);
  hub.method("whoami", (params, { client }) => client);
  const socket = new WebSocket(url);
  await new Promise((resolve, reject) => socket.once("open", resolve).once("error", reject));
  const stranger = new JSONRPCServerAndClient(
    new StrangerServer(),
    new StrangerClient((request) => socket.send(JSON.stringify(request))),
  );
  stranger.addMethod("shout", ([text]) => text.toUpperCase());
  socket.on("message", (data) => stranger.receiveAndSend(JSON.parse(String(data))).catch(() => {}));
  const received = [];
  socket.on("message", (data) => received.push(JSON.parse(String(data))));
  const ours = await connect();
  try {
    await until(() => hub.clients.length === 2, "two clients");
    const [strangerId, ourId] = hub.clients;
    assert.equal(await stranger.request("whoami"), strangerId, "its handler saw the stranger's id");
    const outcomes = await hub.requestAll("shout", ["hi"], { timeout: 2000 });
    assert.deepEqual(outcomes[strangerId], { result: "HI" }, "the stranger answered the call to all");
    assert.equal(outcomes[ourId].error.code, ErrorCode.METHOD_NOT_FOUND, "ours has no shout: its own error, by id");
    assert.ok(received.every((message) => !Array.isArray(message)), "no batch toward a peer that offered none");
    socket.close();
    await until(() => hub.clients.length === 1, "the stranger gone");
    assert.deepEqual(hub.clients, [ourId]);
  } finally {
    socket.terminate();
    ours.destroy();
    hub.destroy();
  }
});

test("200 clients come and go while calls run: every call answered or failed, nothing left behind", async () => {
  const hub = new Hub().attach(wss);
  let connections = 0;
  let disconnections = 0;
  hub.on("connection", () => connections++);
  hub.on("disconnection", () => disconnections++);
  hub.method("add", ([a, b], { client }) => (client ? a + b : NaN));
  const settled = [];
  // Four waves of 50: each client makes calls and leaves, some before their answers.
  for (let wave = 0; wave < 4; wave++) {
    const clients = await Promise.all(Array.from({ length: 50 }, () => connect()));
    const calls = clients.flatMap((client, at) => [1, 2, 3].map((n) =>
      client.request("add", [at, n], { timeout: 2000 }).then((sum) => (assert.equal(sum, at + n), "answered"),
        (error) => error.code)));
    // Half of the clients leave at once, with calls in flight.
    for (const client of clients.slice(0, 25)) client.destroy();
    settled.push(...(await Promise.all(calls)));
    for (const client of clients.slice(25)) client.destroy();
  }
  await until(() => hub.clients.length === 0, "every client gone");
  assert.equal(settled.length, 600);
  assert.ok(settled.every((outcome) => outcome === "answered" || outcome === ErrorCode.DESTROYED), "answered, or failed by its own client's destroy");
  assert.ok(settled.filter((outcome) => outcome === "answered").length >= 300, "the staying half's calls were all answered");
  assert.equal(connections, 200);
  assert.equal(disconnections, 200);
  await until(() => wss.clients.size === 0, "every socket closed");
  hub.destroy();
  assert.equal(wss.listenerCount("connection"), 0, "the hub took its listener off the server");
});

test("Chromium: three Peers in a page on one hub, each seen as its own client", { timeout: 60_000 }, async () => {
  const browser = await openLibPage();
  // The page is served from another port: its origin must be named.
  const hub = new Hub().attach(wss, { origins: [new URL(browser.page.url()).origin] });
  const events = [];
  hub.on("connection", (id) => events.push(["connection", id]));
  hub.on("disconnection", (id) => events.push(["disconnection", id]));
  hub.method("whoami", (params, { client }) => client);
  try {
    const seen = await browser.page.evaluate(async (url) => {
      const { Peer, webSocketTransport } = window.lib;
      window.heard = [];
      window.peers = [0, 1, 2].map((at) => {
        const peer = new Peer(webSocketTransport(url));
        peer.onNotify("news", ({ headline }) => window.heard.push([at, headline]));
        return peer;
      });
      return Promise.all(window.peers.map((peer) => peer.request("whoami")));
    }, url);
    const ids = hub.clients;
    assert.deepEqual(seen, ids, "each page Peer is its own client");
    assert.deepEqual(events, ids.map((id) => ["connection", id]));
    hub.notifyAll("news", { headline: "to all" });
    await browser.page.waitForFunction(() => window.heard.length === 3);
    assert.deepEqual((await browser.page.evaluate(() => window.heard)).sort(), [[0, "to all"], [1, "to all"], [2, "to all"]]);
    await browser.page.evaluate(() => window.peers[1].destroy());
    await until(() => hub.clients.length === 2, "the second to leave");
    assert.deepEqual(events.at(-1), ["disconnection", ids[1]]);
  } finally {
    await browser.close();
    await until(() => hub.clients.length === 0, "the page's clients gone with the browser");
    hub.destroy();
  }
});

test("who a hub lets in: its own pages and clients without Origin; not another site's page, nor a forged Host", { timeout: 60_000 }, async () => {
  const { createServer, request } = await import("node:http");
  const page = "<!doctype html><title>page</title>";
  const serve = async () => {
    const server = createServer((req, res) => res.writeHead(200, { "content-type": "text/html" }).end(page));
    await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
    return server;
  };
  const own = await serve();
  const other = await serve();
  const ownUrl = `http://127.0.0.1:${own.address().port}/`;
  const otherUrl = `http://127.0.0.1:${other.address().port}/`;
  // The server's own check still has its say beside the hub's.
  const ownWss = new WebSocketServer({ server: own, verifyClient: ({ req }) => !req.url.includes("blocked") });
  const hub = new Hub().attach(ownWss);
  const refused = [];
  hub.on("refused", (detail) => refused.push(detail));
  let handled = 0;
  hub.method("whoami", (params, { client }) => (handled++, client));
  const { launchChromium } = await import("./browser.mjs");
  const browser = await launchChromium();
  const socketUrl = `ws://127.0.0.1:${own.address().port}/`;
  // Opens `count` sockets from a page at `pageUrl`; resolves with how each went.
  const tryFrom = async (pageUrl, count = 1) => {
    const tab = await browser.newPage();
    await tab.goto(pageUrl);
    const outcomes = await tab.evaluate(async ([url, count]) => Promise.all(Array.from({ length: count }, () =>
      new Promise((resolve) => {
        const socket = new WebSocket(url);
        socket.onmessage = (event) => (resolve(JSON.parse(event.data).result), socket.close());
        socket.onopen = () => socket.send(JSON.stringify({ jsonrpc: "2.0", method: "whoami", id: 1 }));
        socket.onerror = () => resolve("refused");
      }))), [socketUrl, count]);
    await tab.close();
    return outcomes;
  };
  try {
    const [mine] = await tryFrom(ownUrl);
    assert.match(mine, /^client-/, "the server's own page is served");
    const theirs = await tryFrom(otherUrl, 20);
    assert.deepEqual(theirs, Array(20).fill("refused"), "every socket of another site's page is refused");
    await until(() => refused.length === 20, "twenty refusals");
    assert.equal(refused[0].status, 403);
    assert.equal(refused[0].origin, otherUrl.slice(0, -1));
    assert.equal(handled, 1, "no handler ran for a refused page");
    // A client that sends no Origin (Node) gets in.
    const node = new Peer(webSocketTransport(socketUrl, { WebSocket }));
    assert.match(await node.request("whoami"), /^client-/, "a Node client");
    node.destroy();
    // A forged Host (DNS rebinding) toward a loopback server: 403 before the upgrade.
    const status = await new Promise((resolve, reject) => {
      const forged = request({ host: "127.0.0.1", port: own.address().port, headers: {
        host: "evil.example", connection: "Upgrade", upgrade: "websocket", "sec-websocket-version": "13",
        "sec-websocket-key": "dGhlIHNhbXBsZSBub25jZQ==" } });
      forged.on("response", (res) => resolve(res.statusCode));
      forged.on("upgrade", () => resolve(101));
      forged.on("error", reject);
      forged.end();
    });
    assert.equal(status, 403, "a forged Host is refused");
    assert.match(refused.at(-1).reason, /loopback/);
    // The server's own verifyClient refuses, though the hub would not.
    const blocked = new WebSocket(`${socketUrl}?blocked`);
    blocked.on("error", () => {});
    const [, response] = await once(blocked, "unexpected-response");
    assert.equal(response.statusCode, 401, "the server's own verifyClient still refuses");
    blocked.terminate();
    // Origins compared as origins: another case and a trailing slash still match.
    hub.destroy();
    const listed = new Hub().attach(ownWss, { origins: [otherUrl.toUpperCase()] });
    listed.method("whoami", (params, { client }) => client);
    const [allowed] = await tryFrom(otherUrl);
    assert.match(allowed, /^client-/, "a listed origin gets in");
    listed.destroy();
    // authenticate names the client, or refuses it.
    const checked = new Hub().attach(ownWss, {
      authenticate: (req) => new URL(req.url, "http://x").searchParams.get("token") === "s3cret" && "alice",
    });
    checked.method("whoami", (params, { client }) => client);
    const alice = new Peer(webSocketTransport(`${socketUrl}?token=s3cret`, { WebSocket }));
    assert.equal(await alice.request("whoami"), "alice", "the id authenticate returned");
    alice.destroy();
    const [stranger] = await tryFrom(ownUrl.replace(/\/$/, "/?no-token"));
    assert.equal(stranger, "refused", "no token, no connection");
    checked.destroy();
  } finally {
    hub.destroy();
    await browser.close();
    for (const socket of ownWss.clients) socket.terminate();
    await new Promise((resolve) => ownWss.close(resolve));
    await new Promise((resolve) => own.close(resolve));
    await new Promise((resolve) => other.close(resolve));
  }
});
