// The many-party boundaries of `wiggum-rpc/hub` in headless Firefox, driven
// over WebDriver (tests/js/firefox.mjs): two tabs on one BroadcastChannel,
// two tabs on one SharedWorker (a closed tab dropped by the worker), and a
// page with its service worker replaced mid-call by unregistering and
// registering it again, beside another library's messages on
// `navigator.serviceWorker`. Firefox lets the unregistered worker finish the call
// it has (its `waitUntil` holds it), then ends it: the page follows to the
// new worker, which answers the next call.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { startPagesServer } from "./browser.mjs";
import { launchFirefox } from "./firefox.mjs";

let server;
let firefox;

before(async () => {
  server = await startPagesServer();
  firefox = await launchFirefox();
});

after(async () => {
  await firefox?.close();
  await server?.close();
});

/** Loads the web build into a tab as `window.lib` (with the hub entry). */
async function withLib(tab) {
  await firefox.evaluate(tab, async () => {
    const root = await import("/pkg/wiggum_rpc.js");
    await root.default();
    window.lib = { ...root, ...(await import("/pkg/hub.js")) };
  });
  return tab;
}

/** Waits in a tab until `predicate` (source of a function of no arguments) holds. */
function until(tab, predicate) {
  return firefox.evaluate(tab, async (source) => {
    const holds = new Function(`return (${source})()`);
    for (let waited = 0; !holds(); waited += 20) {
      if (waited > 5000) throw new Error(`timed out waiting for ${source}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }, String(predicate));
}

test("Firefox, BroadcastChannel: addressed calls, call-all, and a closed tab dropped", async () => {
  const first = await withLib(await firefox.open(`${server.url}blank.html`));
  const joinBus = async (id) => {
    window.events = [];
    window.hub = window.lib.broadcastHub("ff-bus", { id });
    window.hub.on("connection", (peer) => window.events.push(["connection", peer]));
    window.hub.on("disconnection", (peer) => window.events.push(["disconnection", peer]));
    window.hub.method("whoami", (params, { client }) => ({ me: id, caller: client }));
  };
  await firefox.evaluate(first, joinBus, "a");
  const second = await withLib(await firefox.newTab(`${server.url}blank.html`));
  await firefox.evaluate(second, joinBus, "b");
  await until(first, () => window.hub.clients.length === 1);
  assert.deepEqual(await firefox.evaluate(first, async () => window.hub.request("b", "whoami")), { me: "b", caller: "a" });
  assert.deepEqual(await firefox.evaluate(second, async () => window.hub.requestAll("whoami")), { a: { result: { me: "a", caller: "b" } } });
  await firefox.closeTab(second);
  await until(first, () => window.hub.clients.length === 0);
  assert.deepEqual(await firefox.evaluate(first, async () => window.events), [["connection", "b"], ["disconnection", "b"]]);
  await firefox.evaluate(first, async () => window.hub.destroy());
});

test("Firefox, SharedWorker: each tab its own client, a closed tab dropped", async () => {
  const connect = async () => {
    window.left = [];
    window.worker = new SharedWorker("/shared-worker.js", { type: "module" });
    window.peer = new window.lib.Peer(window.lib.sharedWorkerTransport(window.worker));
    window.peer.onNotify("left", ({ id }) => window.left.push(id));
    return window.peer.request("whoami");
  };
  const first = await withLib(await firefox.open(`${server.url}blank.html`));
  const one = await firefox.evaluate(first, connect);
  const second = await withLib(await firefox.newTab(`${server.url}blank.html`));
  const two = await firefox.evaluate(second, connect);
  assert.notEqual(one, two);
  await firefox.closeTab(first);
  await until(second, () => window.left.length === 1);
  assert.deepEqual(await firefox.evaluate(second, async () => [window.left, await window.peer.request("clients")]), [[one], [two]]);
  await firefox.evaluate(second, async () => window.peer.destroy());
});

test("Firefox, service worker: replaced mid-call, the call answered by the old worker or failed with CONNECTION_CLOSED, the next answered by the new one", async () => {
  const tab = await withLib(await firefox.open(`${server.url}blank.html`));
  const outcome = await firefox.evaluate(tab, async () => {
    await navigator.serviceWorker.register("/sw.js", { type: "module", scope: "/" });
    const events = [];
    const peer = new window.lib.Peer(window.lib.serviceWorkerTransport());
    for (const event of ["open", "close", "reconnected"]) peer.on(event, () => events.push(event));
    const sum = await peer.request("add", [2, 3]);
    const first = await peer.request("instance");
    // Another library's protocol on the same channel, both ways: answered by it alone.
    const foreign = new Promise((resolve) => navigator.serviceWorker.addEventListener("message", ({ data }) => {
      if (data?.foreign) resolve(data);
    }));
    (await navigator.serviceWorker.getRegistration()).active.postMessage({ foreign: "ping" });
    const pong = await foreign;
    const slow = peer.request("slow", [1000]).then((result) => result, (error) => error.code);
    await new Promise((resolve) => setTimeout(resolve, 200));
    const reconnected = new Promise((resolve) => peer.on("reconnected", resolve));
    await (await navigator.serviceWorker.getRegistration())?.unregister();
    await navigator.serviceWorker.register("/sw.js", { type: "module", scope: "/" });
    const finished = await slow;
    await reconnected;
    const next = await peer.request("add", [20, 22]);
    const second = await peer.request("instance");
    peer.destroy();
    await (await navigator.serviceWorker.getRegistration())?.unregister();
    return { sum, pong, finished, next, changed: first !== second, events };
  });
  // The slow call ends one of two ways, by which comes first: the old worker
  // answers it, or the new one is activated and the old one turns redundant,
  // which fails it with CONNECTION_CLOSED (never sent twice). On an idle
  // machine the answer comes first; on a loaded one, either may.
  console.log(`Firefox, service worker replaced mid-call: the slow call ended with ${JSON.stringify(outcome.finished)}`);
  assert.ok(["slow done", -32095].includes(outcome.finished), `the slow call: ${outcome.finished}`);
  assert.deepEqual({ ...outcome, finished: undefined }, {
    sum: 5,
    pong: { foreign: "pong", seen: "ping" },
    finished: undefined,
    next: 42,
    changed: true,
    events: ["open", "close", "open", "reconnected"],
  });
});
