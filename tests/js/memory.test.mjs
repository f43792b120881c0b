// Memory and scale on the release build in Chromium: a million calls through
// a Peer leave the wasm memory and the JS heap flat (measured after forced
// garbage collections), and ten thousand calls in flight at once all settle.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { startServer } from "../../scripts/serve.mjs";
import { launchChromium } from "./browser.mjs";

const root = new URL("../..", import.meta.url).pathname;
const calls = Number(process.env.MEMORY_TEST_CALLS ?? 1_000_000);
let server;
let browser;
let page;

before(async () => {
  server = await startServer({ mounts: [["/pkg/", join(root, "pkg-web")], ["/", join(root, "tests/js/pages")]] });
  browser = await launchChromium({ args: ["--js-flags=--expose-gc", "--enable-precise-memory-info"] });
  page = await browser.newPage();
  await page.goto(`${server.url}blank.html`);
  await page.evaluate(async () => {
    const lib = await import("/pkg/wiggum_rpc.js");
    window.wasm = await lib.default();
    window.lib = lib;
    const { port1, port2 } = new MessageChannel();
    window.left = new lib.Peer(lib.portTransport(port1));
    window.right = new lib.Peer(lib.portTransport(port2));
    window.right.method("add", ([a, b]) => a + b);
    window.left.method("echo", (params) => params);
    window.measure = async () => {
      for (let i = 0; i < 4; i++) {
        window.gc();
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      return { wasm: window.wasm.memory.buffer.byteLength, heap: performance.memory.usedJSHeapSize };
    };
    // `total` calls, `width` in flight at a time, both directions.
    window.drive = async (total, width) => {
      let next = 0;
      const lane = async () => {
        while (next < total) {
          const i = next++;
          const sum = await (i % 2 ? window.left.request("add", [i, 1]) : window.right.request("echo", [i]));
          if ((i % 2 ? sum : sum[0]) !== (i % 2 ? i + 1 : i)) throw new Error(`wrong answer for call ${i}`);
        }
      };
      await Promise.all(Array.from({ length: width }, lane));
    };
  });
});

after(async () => {
  await browser?.close();
  await server?.close();
});

test(`${calls.toLocaleString("en-US")} calls leave memory flat`, { timeout: 300_000 }, async () => {
  await page.evaluate(() => window.drive(50_000, 64)); // warm up: let allocators and JIT settle
  const before = await page.evaluate(() => window.measure());
  const started = Date.now();
  await page.evaluate((total) => window.drive(total, 64), calls);
  const seconds = (Date.now() - started) / 1000;
  const after = await page.evaluate(() => window.measure());
  const pending = await page.evaluate(() => window.left.pending + window.right.pending);
  console.log(`# ${calls} calls in ${seconds.toFixed(1)} s; wasm memory ${before.wasm} -> ${after.wasm} bytes; `
    + `JS heap ${before.heap} -> ${after.heap} bytes`);
  assert.equal(pending, 0, "nothing left pending");
  assert.equal(after.wasm, before.wasm, "wasm memory did not grow");
  assert.ok(after.heap < before.heap + 2 * 1024 * 1024, `JS heap grew by ${after.heap - before.heap} bytes`);
});

test("10,000 calls in flight at once", { timeout: 120_000 }, async () => {
  const result = await page.evaluate(async () => {
    const started = performance.now();
    const answers = await Promise.all(Array.from({ length: 10_000 }, (_, i) => window.left.request("add", [i, i])));
    const wrong = answers.filter((answer, i) => answer !== 2 * i).length;
    return { wrong, ms: performance.now() - started, pending: window.left.pending };
  });
  console.log(`# 10,000 in flight settled in ${result.ms.toFixed(0)} ms`);
  assert.deepEqual({ wrong: result.wrong, pending: result.pending }, { wrong: 0, pending: 0 });
});
