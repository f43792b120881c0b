// The other side's end noticed on the postMessage transports, in Chromium and
// in Firefox: a worker terminated, the other side of a port destroyed, the
// worker's own Peer destroyed (selfTransport), an iframe removed, an iframe
// navigated away. A call waiting on it fails with
// CONNECTION_CLOSED, soon (not at its 20 s timeout), and `close` is emitted:
// each side holds a Web Lock while it lives and names it in its hello, and
// the other side waits for that lock (tests/js/pages/gone.js).
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { pagesInBothBrowsers } from "./browser.mjs";

const CONNECTION_CLOSED = -32095;
const BOUND_MS = 1000;
const WAYS = ["worker terminated", "the port's other side destroyed", "the worker's own Peer destroyed", "iframe removed", "iframe navigated away"];

function check(browser, results) {
  for (const way of WAYS) {
    const result = results[way];
    console.log(`${browser}, ${way}: ${JSON.stringify(result)}`);
    assert.equal(result.code, CONNECTION_CLOSED, `${browser}, ${way}: CONNECTION_CLOSED`);
    assert.ok(result.ms < BOUND_MS, `${browser}, ${way}: within ${BOUND_MS} ms (took ${result.ms})`);
    assert.deepEqual(result.closes, ["the other side has gone"], `${browser}, ${way}: close emitted once`);
  }
  // What the docs warn of: a port closed by hand, not destroyed, tells the
  // other side nothing (no platform event), and its call waits for its timeout.
  const byHand = results["the port closed by hand"];
  console.log(`${browser}, the port closed by hand: ${JSON.stringify(byHand)}`);
  assert.equal(byHand.code, -32099, `${browser}: a port closed by hand ends its calls only at their timeout`);
  assert.deepEqual(byHand.closes, []);
}

let browsers;
before(async () => {
  browsers = await pagesInBothBrowsers();
});
after(() => browsers?.close());

for (const browser of ["Chromium", "Firefox"]) {
  test(`${browser}: each way the other side ends fails the waiting call with CONNECTION_CLOSED within a second`, async () => {
    check(browser, await browsers.run(browser, "/gone.js", "endsNoticed"));
  });
}
