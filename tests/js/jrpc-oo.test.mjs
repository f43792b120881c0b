// Interop with jrpc-oo (@flatmax/jrpc-oo's JRPCServer on node, over `ws`):
// a Peer in Chromium in jrpcOo mode does the system.listComponents handshake,
// calls exposed `Class.method`s with `{"args": [...]}` params, takes the
// server's calls to its own exposed class, gets jrpc's error shapes as
// RPCErrors, and reconnects after the server restarts on the same port.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { createServer as createNetServer } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { openLibPage } from "./browser.mjs";

const require = createRequire(import.meta.url);
const { JRPCServer } = require("@flatmax/jrpc-oo/JRPCServer.js");

// jrpc-oo exposes every prototype method as "Repo.<name>" and spreads the
// request's `args` into it.
class Repo {
  constructor() {
    this.notes = [];
    this.onHang = null;
  }

  get_file_tree() {
    return { root: "repo", files: ["README.md", "src/lib.rs"] };
  }

  add(a, b) {
    return a + b;
  }

  describe(...args) {
    return { count: args.length, args };
  }

  note(text) {
    this.notes.push(text);
  }

  // Async on purpose: jrpc-oo wraps the call in Promise.resolve(), so a
  // synchronous throw would escape as an uncaught exception instead.
  async explode() {
    throw new Error("disk on fire");
  }

  async refuse(path) {
    throw { code: 4001, message: "Not a repository", data: { path } };
  }

  hang() {
    this.onHang?.();
    return new Promise(() => {});
  }
}

class Build {
  status(branch) {
    return { branch, clean: true };
  }
}

// JRPCServer logs every connect and disconnect; the hooks also let a test
// wait until the server has learned the browser's methods (its own
// system.listComponents round trip), which is when `call` gets filled.
class QuietServer extends JRPCServer {
  constructor(port) {
    super(port, 10, false);
    this.ready = new Promise((resolve) => (this.markReady = resolve));
  }

  remoteIsUp() {}

  remoteDisconnected() {}

  setupDone() {
    this.markReady();
  }
}

// JRPCServer takes only a port and listens on every interface, so the probe
// binds the same way.
function freePort() {
  return new Promise((resolve, reject) => {
    const probe = createNetServer();
    probe.once("error", reject);
    probe.listen(0, () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

async function startJrpcServer(port, classes) {
  const server = new QuietServer(port);
  for (const [name, instance] of classes) server.addClass(instance, name);
  await new Promise((resolve, reject) => {
    server.wss.once("listening", resolve);
    server.wss.once("error", reject);
  });
  return server;
}

// `ws` leaves open connections alone on close(); terminating them is what a
// crashed or restarted server looks like to the browser.
async function stopJrpcServer(server) {
  for (const client of server.wss.clients) client.terminate();
  await new Promise((resolve) => server.wss.close(resolve));
}

// jrpc-oo console.logs every error it passes on; here they are expected.
async function withoutJrpcOoErrorLogs(body) {
  const log = console.log;
  console.log = (...args) => {
    if (!/^(failed : |Error when calling remote function : )/.test(String(args[0]))) log(...args);
  };
  try {
    return await body();
  } finally {
    console.log = log;
  }
}

async function eventually(check, what, ms = 5000) {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(10);
  }
}

let port;
let repo;
let jrpc;
let opened;
let page;

before(async () => {
  port = await freePort();
  repo = new Repo();
  jrpc = await startJrpcServer(port, [["Repo", repo]]);
  opened = await openLibPage();
  page = opened.page;
  await page.evaluate((url) => {
    class BrowserUi {
      greet(name, punctuation) {
        return `hello ${name}${punctuation}`;
      }

      async sum(...values) {
        await new Promise((resolve) => setTimeout(resolve, 5));
        return values.reduce((total, value) => total + value, 0);
      }

      fail(reason) {
        throw new Error(`refused: ${reason}`);
      }
    }
    const transport = lib.webSocketTransport(url, { reconnect: { initialDelay: 100, maxDelay: 500 } });
    const peer = new lib.Peer(transport, { jrpcOo: true });
    window.events = [];
    for (const name of ["open", "close", "reconnecting", "reconnected"]) {
      peer.on(name, (event) => window.events.push({ name, attempt: event?.attempt ?? null }));
    }
    // Same turn as the transport's creation, so the socket cannot be open yet:
    // the handshake must already list these.
    peer.expose(new BrowserUi(), "BrowserUi");
    window.peer = peer;
    window.outcome = (promise) => promise.then(
      (value) => ({ value }),
      (error) => ({ code: error.code, message: error.message, ...(error.data === undefined ? {} : { data: error.data }) }),
    );
  }, `ws://127.0.0.1:${port}`);
});

after(async () => {
  await opened?.close();
  if (jrpc) await stopJrpcServer(jrpc);
});

test("the handshake tells each side the other's methods", { timeout: 30_000 }, async () => {
  const listed = await page.evaluate(() => window.peer.request("system.listComponents"));
  assert.deepEqual(
    Object.keys(listed).filter((name) => name.startsWith("Repo.")).sort(),
    ["Repo.add", "Repo.describe", "Repo.explode", "Repo.get_file_tree", "Repo.hang", "Repo.note", "Repo.refuse"],
  );
  await jrpc.ready;
  const remotes = Object.values(jrpc.remotes);
  assert.equal(remotes.length, 1, "one browser connected");
  const learned = Object.keys(remotes[0].rpcs);
  for (const name of ["BrowserUi.greet", "BrowserUi.sum", "BrowserUi.fail"]) {
    assert.ok(learned.includes(name), `the server learned ${name} (it has ${learned.join(", ")})`);
  }
  // Offering it would make jrpc send {"requests": [...], "responses": [...]} objects.
  assert.ok(!learned.includes("system.extension.dual-batch"), "dual-batch is not offered");
  // jrpc takes any object params of system.listComponents as the caller's
  // method map, and then refuses, without sending, calls to methods missing
  // from it: the browser's explicit call above must not have replaced it.
  assert.equal(remotes[0].remoteComponents["BrowserUi.greet"], true, "the server's map of the browser lists its methods");
  assert.ok(await page.evaluate(() => window.events.some((event) => event.name === "open")), "open fired");
});

test("browser calls reach jrpc-oo methods with their args spread", { timeout: 30_000 }, async () => {
  const answers = await page.evaluate(async () => {
    const remote = window.peer.remote();
    return {
      tree: await remote.Repo.get_file_tree(),
      sum: await window.peer.request("Repo.add", [2, 3]),
      described: await remote.Repo.describe("x", { y: 1 }, [2, 3]),
    };
  });
  assert.deepEqual(answers, {
    tree: { root: "repo", files: ["README.md", "src/lib.rs"] },
    sum: 5,
    described: { count: 3, args: ["x", { y: 1 }, [2, 3]] },
  });
});

// jrpc-oo reads `params.args` unguarded: a call without params would throw in
// the server, so the peer has to send {"args": []}.
test("a call without params reaches a jrpc-oo method", { timeout: 30_000 }, async () => {
  const tree = await page.evaluate(() => window.peer.request("Repo.get_file_tree", undefined, { timeout: 5000 }));
  assert.deepEqual(tree, { root: "repo", files: ["README.md", "src/lib.rs"] });
});

test("a notification reaches the jrpc-oo method", { timeout: 30_000 }, async () => {
  await page.evaluate(() => window.peer.notify("Repo.note", ["from the browser"]));
  await eventually(() => repo.notes.length > 0, "the note");
  assert.deepEqual(repo.notes, ["from the browser"]);
});

test("jrpc-oo's errors arrive as RPCErrors", { timeout: 30_000 }, async () => {
  const outcomes = await withoutJrpcOoErrorLogs(() => page.evaluate(async () => ({
    thrown: await window.outcome(window.peer.remote().Repo.explode()),
    coded: await window.outcome(window.peer.remote().Repo.refuse("/nope")),
    missing: await window.outcome(window.peer.remote().Repo.missing()),
  })));
  // jrpc replaces a thrown Error (no `code`) with code -2 "error" and the
  // Error itself as data, which JSON turns into {}.
  assert.deepEqual(outcomes.thrown, { code: -2, message: "error", data: {} });
  assert.deepEqual(outcomes.coded, { code: 4001, message: "Not a repository", data: { path: "/nope" } });
  assert.equal(outcomes.missing.code, -32601);
});

test("the server calls the browser's exposed class and gets its answers", { timeout: 30_000 }, async () => {
  await jrpc.ready;
  const [uuid] = Object.keys(jrpc.remotes);
  assert.deepEqual(await jrpc.call["BrowserUi.greet"]("jrpc-oo", "!"), { [uuid]: "hello jrpc-oo!" });
  const rpcs = jrpc.remotes[uuid].rpcs;
  assert.equal(await rpcs["BrowserUi.sum"](1, 2, 3, 4), 10);
  await withoutJrpcOoErrorLogs(() => assert.rejects(rpcs["BrowserUi.fail"]("disk full"), (error) => {
    assert.equal(error.code, -32603);
    assert.match(error.message, /refused: disk full/);
    return true;
  }));
});

test("after the server restarts on its port, the peer reconnects and calls work both ways", { timeout: 30_000 }, async () => {
  const entered = new Promise((resolve) => (repo.onHang = resolve));
  await page.evaluate(() => {
    window.hung = window.outcome(window.peer.remote().Repo.hang());
  });
  await entered;
  await stopJrpcServer(jrpc);
  const hung = await page.evaluate(() => window.hung);
  assert.equal(hung.code, -32095, "the call in flight failed when the connection dropped");
  assert.equal(hung.message, "Connection closed");

  await page.waitForFunction(() => window.events.some((event) => event.name === "reconnecting"), null, { timeout: 5000 });
  // Issued while no server is there: it waits in the queue for the new one.
  await page.evaluate(() => {
    window.queued = window.outcome(window.peer.request("Repo.add", [20, 22]));
  });
  repo = new Repo();
  jrpc = await startJrpcServer(port, [["Repo", repo], ["Build", new Build()]]);
  await page.waitForFunction(() => window.events.some((event) => event.name === "reconnected"), null, { timeout: 10_000 });

  const events = await page.evaluate(() => window.events);
  const names = events.map((event) => event.name);
  assert.ok(names.indexOf("close") < names.indexOf("reconnecting"), `events in order: ${names.join(", ")}`);
  assert.ok(names.indexOf("reconnecting") < names.indexOf("reconnected"), `events in order: ${names.join(", ")}`);
  assert.equal(events.find((event) => event.name === "reconnecting").attempt, 1);
  assert.ok(events.find((event) => event.name === "reconnected").attempt >= 1);

  assert.deepEqual(await page.evaluate(() => window.queued), { value: 42 }, "the queued call went to the new server");
  const answers = await page.evaluate(async () => ({
    listed: Object.keys(await window.peer.request("system.listComponents")),
    status: await window.peer.remote().Build.status("main"),
    sum: await window.peer.request("Repo.add", [4, 5]),
  }));
  assert.ok(answers.listed.includes("Build.status"), "the new server's methods were listed");
  assert.deepEqual(answers.status, { branch: "main", clean: true });
  assert.equal(answers.sum, 9);

  await jrpc.ready;
  const remotes = Object.keys(jrpc.remotes);
  assert.equal(remotes.length, 1, "one browser connected to the new server");
  assert.deepEqual(await jrpc.call["BrowserUi.greet"]("again", "?"), { [remotes[0]]: "hello again?" });
});
