// The port hand-off of docs/guide/message-channel.md in Chromium and Firefox:
// the page moves a MessagePort into a bundled worker (esbuild with the
// package's wasmPlugin, pkg/) before the worker's code has run, and calls
// at once with no timeout. The worker's import waits for the .wasm, so the
// hand-off arrives before the worker listens: the package holds it and
// dispatches it again once the worker's code has run. The call is answered,
// and the page's other messages reach the worker once each.
import { after, before, test } from "node:test";
import { mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import assert from "node:assert/strict";
import { pagesInBothBrowsers } from "./browser.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const vendor = join(here, "pages/vendor");
const CALL_BOUND_MS = 30_000;

let browsers;
before(async () => {
  const { wasmPlugin } = await import("../../pkg/esbuild.js");
  mkdirSync(vendor, { recursive: true });
  await build({
    entryPoints: [join(here, "port-handoff/worker.js")],
    bundle: true,
    format: "esm",
    outfile: join(vendor, "port-handoff-worker.js"),
    alias: { "wiggum-rpc": join(here, "../../pkg/wiggum_rpc.js") },
    plugins: [wasmPlugin()],
    logLevel: "warning",
  });
  browsers = await pagesInBothBrowsers();
});
after(() => browsers?.close());

for (const browser of ["Chromium", "Firefox"]) {
  test(`${browser}: a port handed to a bundled worker before its code runs is not lost`, { timeout: CALL_BOUND_MS + 30_000 }, async () => {
    const result = await Promise.race([
      browsers.run(browser, "/port-handoff.js", "handOffPort"),
      new Promise((_, reject) => setTimeout(() => reject(new Error(`no answer within ${CALL_BOUND_MS} ms: the hand-off was lost`)), CALL_BOUND_MS).unref()),
    ]);
    console.log(`${browser}: ${JSON.stringify(result)}`);
    assert.equal(result.summary, "done: the task");
    assert.equal(result.seen, 2, "the page's own messages reached the worker once each");
  });
}
