// The module hand-off, in Chromium and in Firefox (tests/js/pages/handoff.js):
// a worker whose `init()` fetches the .wasm asks its page for the module the
// page compiled. A wiggum-rpc page of the same build answers, and the worker
// starts without waiting for its (here slow) fetch; a page that is not
// wiggum-rpc hears one `$/module` notification, which it may ignore, and the
// worker loads by its fetch; a question for another build goes unanswered.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { pagesInBothBrowsers } from "./browser.mjs";

const SLOW_MS = 1500;

let browsers;
before(async () => {
  browsers = await pagesInBothBrowsers();
});
after(() => browsers?.close());

for (const browser of ["Chromium", "Firefox"]) {
  test(`${browser}: a worker loading the package takes its page's module, or else fetches its own`, async () => {
    const { ours, stranger, wrongBuild } = await browsers.run(browser, "/handoff.js", "handOff");
    console.log(`${browser}: ${JSON.stringify({ ours, stranger, wrongBuild })}`);
    assert.equal(ours.answer, 3);
    assert.ok(ours.ms < SLOW_MS, `the page's module, not the slow fetch (took ${ours.ms} ms)`);
    assert.equal(stranger.answer, 3);
    assert.ok(stranger.ms >= SLOW_MS, `unanswered, the worker waited for its own fetch (took ${stranger.ms} ms)`);
    assert.equal(stranger.first, "$/module", "the question is the first thing the page hears");
    assert.deepEqual(stranger.question, { keys: ["jsonrpc", "method", "params"], build: "string" }, "a JSON-RPC notification naming the build");
    assert.ok(wrongBuild.report.includes("answer"), `the call answered (heard ${wrongBuild.report})`);
    assert.ok(!wrongBuild.report.includes("$/module"), `no module for another build (heard ${wrongBuild.report})`);
    assert.equal(wrongBuild.notified, 0, "the question is the transport's, not the endpoint's");
  });
}
