// The worker pool (`wiggum-rpc/pool`) in Chromium and Firefox, with real
// workers (tests/js/pages/pool.js, pool-worker.js): calls spread over four
// workers, one terminated mid-call (its call fails with CONNECTION_CLOSED,
// the others are answered, a fresh worker takes new calls), cancellation,
// notifications to all or one, a crash, every worker dying at once, destroy,
// a retried call, a factory that throws, a worker that never loads, 32
// workers; calls waiting in the pool for the first worker free (one at a
// time on each, or as many as asked; aborted or timed out while waiting,
// never sent); a worker stuck in a loop ended and replaced; workers
// terminated before they have loaded.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { pagesInBothBrowsers } from "./browser.mjs";

const CONNECTION_CLOSED = -32095;
const DESTROYED = -32098;
const REQUEST_CANCELLED = -32800;
const REQUEST_TIMEOUT = -32099;

function check(browser, seen) {
  console.log(`${browser}: ${JSON.stringify(seen)}`);
  assert.equal(seen.spread, 4, "calls spread over the four workers");
  assert.equal(seen.terminated.failed, 1, "the terminated worker's call failed");
  assert.equal(seen.terminated.answered, 7, "the other seven were answered");
  assert.ok(seen.terminated.failedWithinMs < 1000, "failed soon, not at the timeout");
  assert.equal(seen.afterReplacement, 4, "a fresh worker takes new calls");
  assert.equal(seen.cancelled, REQUEST_CANCELLED);
  assert.equal(seen.notifiedAll, 4);
  assert.equal(seen.notifiedOne, 1);
  assert.equal(seen.countsFromEach, 4, "four calls to four free workers: one on each");
  const sum = (key) => seen.counts.reduce((total, counts) => total + counts[key], 0);
  assert.equal(sum("aborted"), 1, "the cancel reached the call's worker");
  assert.equal(sum("notes"), 5, "one note to each, one to one");
  assert.equal(seen.crash.code, CONNECTION_CLOSED, "a crashed worker's call fails");
  assert.deepEqual(seen.allDied, [CONNECTION_CLOSED, CONNECTION_CLOSED, CONNECTION_CLOSED, CONNECTION_CLOSED]);
  assert.equal(seen.afterAllDied, 1, "replaced, and serving");
  assert.ok(seen.replaced >= 6, `replacements: ${seen.replaced}`);
  assert.deepEqual(seen.destroyed, [DESTROYED], "in flight and waiting");
  assert.equal(seen.afterDestroy, DESTROYED);
  assert.equal(seen.retried, "string", "a call safe to repeat was answered by the replacement");
  assert.equal(seen.brokenFactory.code, CONNECTION_CLOSED);
  assert.match(seen.brokenFactory.message, /no workers today/);
  assert.ok(seen.brokenErrors >= 2, "each slot reported the factory's error");
  assert.ok([CONNECTION_CLOSED, -32099].includes(seen.missing.code), `a worker that never loads: ${JSON.stringify(seen.missing)}`);
  assert.ok(seen.missingReplacedFewTimes, "replaced, slower each time");
  assert.deepEqual(seen.big, { answers: 256, workers: 32 });
}

function checkQueue(browser, seen) {
  console.log(`${browser}: ${JSON.stringify(seen)}`);
  assert.equal(seen.shortsBesideLong, 6, "the short calls went to the worker that was free, not behind the long one");
  assert.deepEqual(seen.peaks, [1, 1], "one call at a time on a worker");
  const { aborted, timedOut, already } = seen.queued;
  assert.equal(aborted.code, REQUEST_CANCELLED);
  assert.equal(aborted.message, "Request aborted: mark");
  assert.equal(aborted.data, "changed my mind", "the abort reason is the data");
  assert.equal(timedOut.code, REQUEST_TIMEOUT);
  assert.match(timedOut.message, /before it could be sent/);
  assert.equal(already.code, REQUEST_CANCELLED);
  assert.ok(seen.queued.busyLast, "the waiting calls ended while the workers were busy");
  assert.deepEqual(seen.queued.progress, [1, 2, 3], "a call that waited hears its progress");
  assert.equal(seen.queued.stepped, "string");
  assert.equal(seen.queued.kept, "string");
  assert.deepEqual(seen.marks, ["kept"], "the calls that ended while they waited were never sent");
  assert.equal(seen.pendingWhileBusy, 6, "two in flight, four waiting (the call aborted before it was made never waited)");
  assert.equal(seen.pendingAfter, 0);
  assert.deepEqual(seen.widePeaks, [3, 3], "maxInFlightPerWorker: 3");
  assert.equal(seen.badOption, "RangeError");
}

function checkStuck(browser, seen) {
  console.log(`${browser}: ${JSON.stringify(seen)}`);
  assert.equal(seen.spun.code, REQUEST_TIMEOUT, "the looping call timed out");
  assert.deepEqual(seen.shorts, { answered: 6, failed: [] }, "the next six short calls were answered, none timed out");
  assert.ok(seen.stuckWasOne, "the stuck worker was ended");
  assert.deepEqual(seen.replacedReasons, ["stuck"]);
  assert.equal(seen.afterStuck, 4, "four workers serve again");
  assert.deepEqual(seen.others, { spun: REQUEST_TIMEOUT, plain: CONNECTION_CLOSED, retried: "string" },
    "its other calls: one failed, one safe to repeat answered by the replacement");
}

function checkLoading(browser, seen) {
  console.log(`${browser}: ${JSON.stringify(seen)}`);
  assert.deepEqual(seen.codes, [CONNECTION_CLOSED, CONNECTION_CLOSED], "terminated while loading: failed at once, not at the timeout");
  assert.deepEqual(seen.replaced, ["gone", "gone"]);
  assert.equal(seen.after, 2, "replaced, and serving");
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
  test(`${browser}: calls wait in the pool for the first worker free`, { timeout: 120_000 }, async () => {
    checkQueue(browser, await browsers.run(browser, "/pool.js", "poolQueue"));
  });
  test(`${browser}: a worker stuck in a loop is ended and replaced`, { timeout: 120_000 }, async () => {
    checkStuck(browser, await browsers.run(browser, "/pool.js", "poolStuck"));
  });
  test(`${browser}: workers terminated while they load`, { timeout: 120_000 }, async () => {
    checkLoading(browser, await browsers.run(browser, "/pool.js", "poolLoading"));
  });
  test(`${browser}: a factory that throws once a worker ended: replaced names the ended worker, then error at each attempt, 50 ms apart and doubling while the other workers answer`, { timeout: 120_000 }, async () => {
    const seen = await browsers.run(browser, "/pool.js", "poolBackoff");
    console.log(`${browser}: ${JSON.stringify(seen)}`);
    assert.deepEqual(seen.events[0], { kind: "replaced", reason: "gone", theEnded: true }, "replaced, as it ended, naming the worker that ended");
    assert.equal(seen.replacedCount, 1, "no worker took its place, and nothing more was replaced");
    assert.equal(seen.errors, seen.gaps.length, "error at each attempt");
    assert.equal(seen.workers, 2);
    // The first attempt at once (a worker gone is replaced at once), then 50 ms later and doubling.
    // Timers fire late on a busy machine, never early: each gap at least its nominal delay.
    const nominal = (i) => (i === 0 ? 0 : Math.min(50 * 2 ** (i - 1), 5000));
    seen.gaps.forEach((gap, i) => assert.ok(gap >= nominal(i) - 5, `attempt ${i + 1} after ${gap} ms, not before ${nominal(i)}`));
    // At 0, 50, 150, 350, 750, 1550 ms: at most 6 attempts in 2.5 s (before, one every 50 to 200 ms).
    assert.ok(seen.gaps.length >= 4 && seen.gaps.length <= 6, `${seen.gaps.length} attempts in 2.5 s`);
  });
}
