// The boundaries with many parties, in headless Chromium (`wiggum-rpc/hub`):
// - many peers on one BroadcastChannel (`broadcastHub`): two pages and a
//   dedicated worker of one origin, each a hub whose clients are the others.
//   Each peer's id arrives with `connection`; a call reaches only the peer
//   it names and its answer only the caller; a call to all collects each
//   answer by id; a notification to all reaches all; a peer leaving is a
//   `disconnection` (with a goodbye, or a page closed without one); other
//   traffic on the channel is left alone;
// - a SharedWorker whose hub serves every page (`listen()`,
//   `sharedWorkerTransport`): each page its own client, answers only to
//   their caller, and a page that closes dropped by the worker;
// - a service worker whose hub serves its client pages (`serveClients()`,
//   `serviceWorkerTransport`): calls answered, the worker stopped mid-call
//   through the DevTools protocol (the call fails with CONNECTION_CLOSED,
//   the page connects again, the next call is answered by a new instance),
//   another library's messages on `navigator.serviceWorker` left alone.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { launchChromium, startPagesServer } from "./browser.mjs";

let server;
let browser;
const pageErrors = [];

before(async () => {
  server = await startPagesServer();
  browser = await launchChromium();
});

after(async () => {
  await browser?.close();
  await server?.close();
});

/**
 * A page that joins channel "bus" as `id`: its hub answers `whoami` with
 * its id and the caller's, records what it hears and every message its
 * links trace.
 */
async function joinAsPage(context, id) {
  const page = await context.newPage();
  page.on("pageerror", (error) => pageErrors.push(`${id}: ${error}`));
  await page.goto(`${server.url}blank.html`);
  await page.evaluate(async (id) => {
    const root = await import("/pkg/wiggum_rpc.js");
    await root.default();
    await import("/pkg/trace.js");
    const { broadcastHub } = await import("/pkg/hub.js");
    window.traced = [];
    window.heard = [];
    window.events = [];
    window.hub = broadcastHub("bus", { id, trace: (record) => record.direction && window.traced.push(record.message) });
    window.hub.on("connection", (peer) => window.events.push(["connection", peer]));
    window.hub.on("disconnection", (peer) => window.events.push(["disconnection", peer]));
    window.hub.method("whoami", (params, { client }) => ({ me: id, caller: client }));
    window.hub.method("hang", () => new Promise(() => {}));
    window.hub.onNotify("news", (params, from) => window.heard.push([from, params.headline]));
  }, id);
  return page;
}

const until = (page, predicate, arg) => page.waitForFunction(predicate, arg, { timeout: 5000 });

test("two pages and a worker on one channel: addressed calls, call-all, notify-all, leaving, foreign traffic", async () => {
  const context = await browser.newContext();
  const a = await joinAsPage(context, "a");
  const b = await joinAsPage(context, "b");
  // The worker joins as "w", from a module worker of page a.
  await a.evaluate(() => {
    window.worker = new Worker("/broadcast-worker.js", { type: "module" });
    return new Promise((resolve, reject) => {
      window.worker.onmessage = resolve;
      window.worker.onerror = (event) => reject(new Error(`worker: ${event.message}`));
    });
  });
  try {
    for (const page of [a, b]) await until(page, () => window.hub.clients.length === 2);
    assert.deepEqual((await a.evaluate(() => window.hub.clients)).sort(), ["b", "w"]);
    assert.deepEqual((await b.evaluate(() => window.hub.clients)).sort(), ["a", "w"]);

    // A call names one peer; the answer comes back to the caller only.
    assert.deepEqual(await a.evaluate(() => window.hub.request("b", "whoami")), { me: "b", caller: "a" });
    assert.deepEqual(await b.evaluate(() => window.hub.request("w", "whoami")), { me: "w", caller: "b" });
    const bSaw = await b.evaluate(() => window.traced);
    assert.ok(bSaw.every((message) => message.method === "whoami" || "result" in message),
      "b's links saw its own call and answer, and a's call to it");
    assert.equal(bSaw.filter((message) => "result" in message && message.result.caller === "a").length, 1,
      "b answered a once");
    assert.ok(!bSaw.some((message) => "result" in message && message.result.me === "w" && message.result.caller === "a"),
      "nothing addressed to others reached b");

    // Every peer at once, each answer by id; a slow one times out alone.
    const all = await a.evaluate(() => window.hub.requestAll("whoami"));
    assert.deepEqual(all, { b: { result: { me: "b", caller: "a" } }, w: { result: { me: "w", caller: "a" } } });
    const slow = await a.evaluate(async () => {
      const outcome = await window.hub.request("w", "slow", [], { timeout: 100 }).catch((error) => error.code);
      return outcome;
    });
    assert.equal(slow, -32099);

    // Foreign traffic on the same channel: ignored by every hub, no answer.
    const aSawBefore = await a.evaluate(() => window.traced.length);
    await b.evaluate(() => {
      const other = new BroadcastChannel("bus");
      other.postMessage({ jsonrpc: "2.0", method: "whoami", id: 1 });
      other.postMessage("hello");
      other.postMessage({ "wiggum-rpc/broadcast": "message", from: 42, message: { jsonrpc: "2.0", method: "whoami", id: 2 } });
      other.close();
    });
    await a.evaluate(() => window.hub.notifyAll("news", { headline: "from a" }));
    await until(b, () => window.heard.length === 1);
    assert.deepEqual(await b.evaluate(() => window.heard), [["a", "from a"]]);
    const aSawNew = await a.evaluate((from) => window.traced.slice(from), aSawBefore);
    assert.deepEqual(aSawNew.map((message) => message.method), ["news", "news"],
      "a traced its two notifications and nothing of the foreign traffic");

    // A peer leaving says goodbye.
    await b.evaluate(() => window.hub.destroy());
    await until(a, () => window.hub.clients.length === 1);
    assert.deepEqual(await a.evaluate(() => window.events.at(-1)), ["disconnection", "b"]);
    assert.deepEqual(await a.evaluate(() => window.hub.clients), ["w"]);

    // A peer whose page closes without a word is gone too (its lock is released).
    // A call waiting on it fails then, and only that call.
    const c = await joinAsPage(context, "c");
    await until(a, () => window.hub.clients.length === 2);
    await a.evaluate(() => {
      window.toC = window.hub.request("c", "hang", [], { timeout: 30_000 }).then(() => "answered", (error) => error.code);
      window.toW = window.hub.request("w", "whoami", [], { timeout: 30_000 });
    });
    await new Promise((resolve) => setTimeout(resolve, 100));
    await c.close();
    await until(a, () => window.hub.clients.length === 1);
    assert.deepEqual(await a.evaluate(() => window.events.slice(-2)), [["connection", "c"], ["disconnection", "c"]]);
    assert.equal(await a.evaluate(() => window.toC), -32095, "the call to the vanished peer failed (CONNECTION_CLOSED, as over a socket)");
    assert.deepEqual(await a.evaluate(() => window.toW), { me: "w", caller: "a" }, "the call to another peer was answered");
    assert.deepEqual(pageErrors, []);
  } finally {
    await context.close();
  }
});

test("a SharedWorker serves each page as its own client, and drops a page that closes", async () => {
  const context = await browser.newContext();
  const open = async (name) => {
    const page = await context.newPage();
    page.on("pageerror", (error) => pageErrors.push(`${name}: ${error}`));
    await page.goto(`${server.url}blank.html`);
    await page.evaluate(async () => {
      const root = await import("/pkg/wiggum_rpc.js");
      await root.default();
      await import("/pkg/trace.js");
      const { sharedWorkerTransport } = await import("/pkg/hub.js");
      window.left = [];
      window.traced = [];
      const worker = (window.worker = new SharedWorker("/shared-worker.js", { type: "module" }));
      window.peer = new root.Peer(sharedWorkerTransport(worker), { trace: (r) => r.direction && window.traced.push(r.message) });
      window.peer.onNotify("left", ({ id }) => window.left.push(id));
    });
    return page;
  };
  const first = await open("first");
  const second = await open("second");
  try {
    const one = await first.evaluate(() => window.peer.request("whoami"));
    const two = await second.evaluate(() => window.peer.request("whoami"));
    assert.notEqual(one, two, "two clients");
    assert.deepEqual((await second.evaluate(() => window.peer.request("clients"))).sort(), [one, two].sort());
    // Ten calls from each at once: each page gets its own answers only.
    const answers = await Promise.all([first, second].map((page) =>
      page.evaluate(() => Promise.all(Array.from({ length: 10 }, () => window.peer.request("whoami"))))));
    assert.deepEqual(answers, [Array(10).fill(one), Array(10).fill(two)]);
    const firstSaw = await first.evaluate(() => window.traced.filter((message) => "result" in message).map((m) => m.result));
    assert.ok(!JSON.stringify(firstSaw).includes(two), "no answer to the second page reached the first");

    // The first page closes without a word: the worker learns it from the page's lock.
    await first.close();
    await until(second, (id) => window.left.includes(id), one);
    assert.deepEqual(await second.evaluate(() => window.peer.request("clients")), [two]);
    assert.deepEqual(pageErrors, []);
  } finally {
    await context.close();
  }
});

test("a service worker answers its pages, and a call after the worker was stopped mid-call is answered by the next one", async () => {
  const context = await browser.newContext();
  const page = await context.newPage();
  page.on("pageerror", (error) => pageErrors.push(`sw page: ${error}`));
  await page.goto(`${server.url}blank.html`);
  try {
    await page.evaluate(async () => {
      const root = await import("/pkg/wiggum_rpc.js");
      await root.default();
      await import("/pkg/trace.js");
      const { serviceWorkerTransport } = await import("/pkg/hub.js");
      await navigator.serviceWorker.register("/sw.js", { type: "module", scope: "/" });
      window.foreign = [];
      window.events = [];
      navigator.serviceWorker.addEventListener("message", ({ data }) => data?.foreign && window.foreign.push(data));
      window.peer = new root.Peer(serviceWorkerTransport());
      for (const event of ["open", "close", "reconnected"]) window.peer.on(event, () => window.events.push(event));
    });
    assert.equal(await page.evaluate(() => window.peer.request("add", [2, 3])), 5);
    const client = await page.evaluate(() => window.peer.request("whoami"));
    assert.equal(typeof client, "string");
    const first = await page.evaluate(() => window.peer.request("instance"));

    // Another library's protocol on the same channel both ways: untouched.
    await page.evaluate(() => navigator.serviceWorker.controller?.postMessage({ foreign: "ping" })
      ?? navigator.serviceWorker.ready.then((registration) => registration.active.postMessage({ foreign: "ping" })));
    await page.waitForFunction(() => window.foreign.length === 1, null, { timeout: 5000 });
    assert.deepEqual(await page.evaluate(() => window.foreign), [{ foreign: "pong", seen: "ping" }]);

    // The worker is stopped while a call runs: the call fails, the next is answered by a new instance.
    await page.evaluate(() => {
      window.slow = window.peer.request("slow", [3000]).then((result) => result, (error) => error.code);
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    const cdp = await context.newCDPSession(page);
    await cdp.send("ServiceWorker.enable");
    await cdp.send("ServiceWorker.stopAllWorkers");
    assert.equal(await page.evaluate(() => window.slow), -32095, "the call in flight failed with CONNECTION_CLOSED");
    assert.equal(await page.evaluate(() => window.peer.request("add", [20, 22])), 42, "the next call was answered");
    const second = await page.evaluate(() => window.peer.request("instance"));
    assert.notEqual(second, first, "by a new instance of the worker");
    assert.deepEqual(await page.evaluate(() => window.events), ["open", "close", "open", "reconnected"]);
    assert.deepEqual(pageErrors, []);
  } finally {
    await context.close();
  }
});
