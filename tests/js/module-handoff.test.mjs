// The module hand-off, in Chromium and in Firefox (tests/js/pages/handoff.js):
// a worker whose `init()` fetches the .wasm asks its page for the module the
// page compiled. A wiggum-rpc page of the same build answers, and the worker
// starts without waiting for its (here slow) fetch; a page that is not
// wiggum-rpc (a plain listener; json-rpc-2.0, a library nobody here wrote)
// hears one `$/module` notification, which it ignores, and the worker loads
// by its fetch; a question for another build goes unanswered.
import { after, before, test } from "node:test";
import { mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import assert from "node:assert/strict";
import { pagesInBothBrowsers } from "./browser.mjs";
import { SLOW_MS } from "./pages/handoff.js";

const vendor = join(dirname(fileURLToPath(import.meta.url)), "pages/vendor");

let browsers;
before(async () => {
  // json-rpc-2.0 is CommonJS: bundled as a module the page can import.
  mkdirSync(vendor, { recursive: true });
  await build({
    stdin: { contents: 'export { JSONRPCClient, JSONRPCServer, JSONRPCServerAndClient } from "json-rpc-2.0";', resolveDir: vendor },
    bundle: true,
    format: "esm",
    outfile: join(vendor, "json-rpc-2.0.js"),
    logLevel: "warning",
  });
  browsers = await pagesInBothBrowsers();
});
after(() => browsers?.close());

for (const browser of ["Chromium", "Firefox"]) {
  test(`${browser}: a worker loading the package takes its page's module, or else fetches its own`, async () => {
    const { ours, stranger, jsonRpc2, wrongBuild } = await browsers.run(browser, "/handoff.js", "handOff");
    console.log(`${browser}: ${JSON.stringify({ ours, stranger, jsonRpc2, wrongBuild })}`);
    assert.equal(ours.answer, 3);
    assert.ok(ours.ms < SLOW_MS, `the page's module, not the slow fetch (took ${ours.ms} ms)`);
    assert.equal(stranger.answer, 3);
    assert.ok(stranger.ms >= SLOW_MS, `unanswered, the worker waited for its own fetch (took ${stranger.ms} ms)`);
    assert.equal(stranger.first, "$/module", "the question is the first thing the page hears");
    assert.deepEqual(stranger.question, { keys: ["jsonrpc", "method", "params"], build: "string" }, "a JSON-RPC notification naming the build");
    assert.equal(jsonRpc2.answer, 3);
    assert.ok(jsonRpc2.ms >= SLOW_MS, `json-rpc-2.0 does not answer: the worker fetched (took ${jsonRpc2.ms} ms)`);
    assert.deepEqual(jsonRpc2.heard.slice(0, 1), ["$/module"], `json-rpc-2.0 heard the question first (heard ${jsonRpc2.heard})`);
    assert.deepEqual(jsonRpc2.sent, ["add"], "json-rpc-2.0 posted its call and nothing in reply to the question or the hello");
    assert.ok(wrongBuild.report.includes("answer"), `the call answered (heard ${wrongBuild.report})`);
    assert.ok(!wrongBuild.report.includes("$/module"), `no module for another build (heard ${wrongBuild.report})`);
    assert.equal(wrongBuild.notified, 0, "the question is the transport's, not the endpoint's");
  });
}
