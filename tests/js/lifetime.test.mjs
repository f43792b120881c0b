// Endpoints live as long as their transport can deliver to them, not as long
// as JS happens to hold their object: a server created and forgotten keeps
// serving through garbage collections (the release build, in Chromium with
// `gc()` exposed), and a destroyed one lets go.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { startServer } from "../../scripts/serve.mjs";
import { launchChromium } from "./browser.mjs";

const root = new URL("../..", import.meta.url).pathname;
let server;
let browser;
let page;

before(async () => {
  server = await startServer({ mounts: [["/pkg/", join(root, "pkg-web")], ["/", join(root, "tests/js/pages")]] });
  browser = await launchChromium({ args: ["--js-flags=--expose-gc"] });
  page = await browser.newPage();
  await page.goto(`${server.url}blank.html`);
  await page.evaluate(async () => {
    const lib = await import("/pkg/wiggum_rpc.js");
    await lib.default();
    window.lib = lib;
  });
});

after(async () => {
  await browser?.close();
  await server?.close();
});

async function collectGarbage() {
  await page.evaluate(async () => {
    for (let i = 0; i < 5; i++) {
      window.gc();
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  });
}

test("a server nobody references keeps serving after garbage collection", async () => {
  await page.evaluate(() => {
    const { port1, port2 } = new MessageChannel();
    (() => {
      // Created and forgotten, as `new JSONRPCServer(selfTransport()).method(…)` often is.
      const forgotten = new window.lib.JSONRPCServer(window.lib.portTransport(port1));
      forgotten.method("ping", () => "pong");
    })();
    window.client = new window.lib.JSONRPCClient(window.lib.portTransport(port2), { timeout: 2000 });
  });
  await collectGarbage();
  assert.equal(await page.evaluate(() => window.client.request("ping")), "pong");
  const errors = [];
  page.on("pageerror", (error) => errors.push(String(error)));
  await collectGarbage();
  assert.equal(await page.evaluate(() => window.client.request("ping")), "pong");
  assert.deepEqual(errors, []);
});

test("pending calls of a forgotten client still settle", async () => {
  const result = await page.evaluate(async () => {
    const { port1, port2 } = new MessageChannel();
    const server = new window.lib.JSONRPCServer(window.lib.portTransport(port1));
    server.method("later", () => new Promise((resolve) => setTimeout(() => resolve("done"), 200)));
    const call = (() => new window.lib.JSONRPCClient(window.lib.portTransport(port2)).request("later"))();
    for (let i = 0; i < 3; i++) window.gc();
    const value = await call;
    server.destroy();
    return value;
  });
  assert.equal(result, "done");
});

test("late callbacks after destroy do nothing, and throw nothing", async () => {
  const errors = [];
  page.on("pageerror", (error) => errors.push(String(error)));
  const outcome = await page.evaluate(async () => {
    const { port1, port2 } = new MessageChannel();
    let server = new window.lib.JSONRPCServer(window.lib.portTransport(port1));
    server.method("slow", () => new Promise((resolve) => setTimeout(() => resolve(1), 100)));
    let client = new window.lib.JSONRPCClient(window.lib.portTransport(port2), { timeout: 50 });
    const call = client.request("slow").catch((error) => error.code);
    await new Promise((resolve) => setTimeout(resolve, 10));
    server.destroy();
    client.destroy();
    server.free();
    client.free();
    server = client = null;
    for (let i = 0; i < 3; i++) window.gc();
    await new Promise((resolve) => setTimeout(resolve, 300));  // the handler settles, the timer would fire
    return call;
  });
  assert.equal(outcome, -32098, "the pending call was rejected as DESTROYED");
  assert.deepEqual(errors, []);
});
