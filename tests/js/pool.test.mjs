// The worker pool (`wiggum-rpc/pool`) in Chromium and Firefox, with real
// workers (tests/js/pages/pool.js, pool-worker.js): calls spread over four
// workers, one terminated mid-call (its calls fail with CONNECTION_CLOSED,
// the others are answered, a fresh worker takes new calls), cancellation,
// notifications to all or one, a crash, every worker dying at once, destroy,
// a retried call, a factory that throws, a worker that never loads, 32 workers.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { pagesInBothBrowsers } from "./browser.mjs";

const CONNECTION_CLOSED = -32095;
const DESTROYED = -32098;
const REQUEST_CANCELLED = -32800;

function check(browser, seen) {
  console.log(`${browser}: ${JSON.stringify(seen)}`);
  assert.equal(seen.spread, 4, "calls spread over the four workers");
  assert.equal(seen.terminated.failed, 2, "the terminated worker's two calls failed");
  assert.equal(seen.terminated.answered, 6, "the other six were answered");
  assert.ok(seen.terminated.failedWithinMs < 1000, "failed soon, not at the timeout");
  assert.equal(seen.afterReplacement, 4, "a fresh worker takes new calls");
  assert.equal(seen.cancelled, REQUEST_CANCELLED);
  assert.equal(seen.notifiedAll, 4);
  assert.equal(seen.notifiedOne, 1);
  assert.equal(seen.countsFromEach, 4, "one call in flight on each worker");
  const sum = (key) => seen.counts.reduce((total, counts) => total + counts[key], 0);
  assert.equal(sum("aborted"), 1, "the cancel reached the call's worker");
  assert.equal(sum("notes"), 5, "one note to each, one to one");
  assert.equal(seen.crash.code, CONNECTION_CLOSED, "a crashed worker's call fails");
  assert.deepEqual(seen.allDied, [CONNECTION_CLOSED, CONNECTION_CLOSED, CONNECTION_CLOSED, CONNECTION_CLOSED]);
  assert.equal(seen.afterAllDied, 1, "replaced, and serving");
  assert.ok(seen.replaced >= 6, `replacements: ${seen.replaced}`);
  assert.equal(seen.destroyed, DESTROYED);
  assert.equal(seen.afterDestroy, DESTROYED);
  assert.equal(seen.retried, "string", "a call safe to repeat was answered by the replacement");
  assert.equal(seen.brokenFactory.code, CONNECTION_CLOSED);
  assert.match(seen.brokenFactory.message, /no workers today/);
  assert.ok(seen.brokenErrors >= 2, "each slot reported the factory's error");
  assert.ok([CONNECTION_CLOSED, -32099].includes(seen.missing.code), `a worker that never loads: ${JSON.stringify(seen.missing)}`);
  assert.ok(seen.missingReplacedFewTimes, "replaced, slower each time");
  assert.deepEqual(seen.big, { answers: 256, workers: 32 });
}

let browsers;
before(async () => {
  browsers = await pagesInBothBrowsers();
});
after(() => browsers?.close());

for (const browser of ["Chromium", "Firefox"]) {
  test(`${browser}: a pool of workers behind one client`, { timeout: 120_000 }, async () => {
    check(browser, await browsers.run(browser, "/pool.js", "poolScenarios"));
  });
}
