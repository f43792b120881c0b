// Functions and objects by reference across a real Worker boundary, in
// headless Chromium and Firefox, on the package's references flavour
// (pkg/references/web/ served at /pkg/; tests/js/pages/references.js and
// references-worker.js): a callback called back 10,000 times then released
// (both tables empty after), 2,000 more with 64 in flight, a live object's
// methods, a stub given back arriving as the original, and a worker
// terminated with stubs on both sides, a pool whose stubs each call the
// worker that made them, and an iframe over windowTransport.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { pagesInBothBrowsers } from "./browser.mjs";

// A call that never settles fails its test, not the suite: each test ends by this bound.
const TEST_TIMEOUT = 120_000;

const CONNECTION_CLOSED = -32095;
const UNKNOWN_REFERENCE = -32091;
const METHOD_NOT_FOUND = -32601;
const EMPTY = { here: [0, 0], there: [0, 0] };

let browsers;
before(async () => {
  browsers = await pagesInBothBrowsers("pkg/references/web");
});
after(() => browsers?.close());

for (const browser of ["Chromium", "Firefox"]) {
  test(`${browser}: a callback called back 10,000 times from a worker, then released: both tables empty`, { timeout: TEST_TIMEOUT }, async () => {
    const seen = await browsers.run(browser, "/references.js", "callbackCalledBack", 10_000);
    console.log(`${browser}: ${seen.calls} calls back in ${seen.ms} ms; tables after: ${JSON.stringify(seen.tables)}`);
    assert.deepEqual(seen.result, { lines: 10_000, sum: (9_999 * 10_000) / 2 });
    assert.equal(seen.calls, 10_000);
    assert.ok(seen.inOrder, "called back in order, with its arguments");
    assert.deepEqual(seen.tables, EMPTY);
  });

  test(`${browser}: 2,000 calls back with 64 in flight`, { timeout: TEST_TIMEOUT }, async () => {
    const seen = await browsers.run(browser, "/references.js", "callbackInFlight", 2_000, 64);
    assert.equal(seen.calls, 2_000);
    assert.equal(seen.sum, (1_999 * 2_000) / 2);
    assert.deepEqual(seen.tables, EMPTY);
  });

  test(`${browser}: a live object from a worker: its methods, errors, private and missing members, release`, { timeout: TEST_TIMEOUT }, async () => {
    const seen = await browsers.run(browser, "/references.js", "liveObject");
    console.log(`${browser}: ${JSON.stringify(seen)}`);
    assert.deepEqual(seen.heldWhileOpen, [0, 1], "the page holds one stub");
    assert.deepEqual(seen.workerWhileOpen, [1, 0], "the worker keeps one target for it");
    assert.deepEqual(seen.sizes, [1, 2]);
    assert.equal(seen.read, "export const a = 1;");
    assert.deepEqual(seen.list, ["src/a.ts", "src/b.ts"]);
    assert.equal(seen.thrown.message, "nope: no such file");
    assert.equal(seen.private, METHOD_NOT_FOUND);
    assert.equal(seen.missing, METHOD_NOT_FOUND);
    assert.deepEqual(seen.released, [true, false]);
    assert.equal(seen.afterRelease, UNKNOWN_REFERENCE);
    assert.deepEqual(seen.tables, EMPTY);
  });

  test(`${browser}: a function sent to a worker and given back arrives as the original`, { timeout: TEST_TIMEOUT }, async () => {
    const seen = await browsers.run(browser, "/references.js", "passedBack");
    assert.equal(seen.same, true);
    assert.deepEqual(seen.heldByWorker, [0, 1], "the worker holds its stub until it releases it");
    assert.equal(seen.released, true);
    assert.deepEqual(seen.tables, EMPTY);
  });

  test(`${browser}: a worker terminated: the page's stub fails CONNECTION_CLOSED and its tables are dropped`, { timeout: TEST_TIMEOUT }, async () => {
    const seen = await browsers.run(browser, "/references.js", "connectionEnds");
    console.log(`${browser}: ${JSON.stringify(seen)}`);
    assert.equal(seen.kept, 42, "the worker called the page's callback it kept");
    assert.deepEqual(seen.heldBefore, [1, 1]);
    assert.equal(seen.afterEnd, CONNECTION_CLOSED);
    assert.deepEqual(seen.heldAfter, [0, 0]);
  });

  test(`${browser}: a pool of two workers: each stub calls the worker that made it`, { timeout: TEST_TIMEOUT }, async () => {
    const seen = await browsers.run(browser, "/references.js", "poolBound");
    console.log(`${browser}: ${JSON.stringify(seen)}`);
    assert.equal(seen.distinct, 2, "the four counters came from both workers");
    for (const round of seen.answered) assert.deepEqual(round, seen.makers);
    assert.deepEqual(seen.sums, [1, 2, 3, 4]);
    assert.deepEqual(seen.released, [true, true, true, true]);
    assert.equal(seen.after, UNKNOWN_REFERENCE);
  });

  test(`${browser}: an iframe over windowTransport: its calls back to the page's callback, and its live object`, { timeout: TEST_TIMEOUT }, async () => {
    const seen = await browsers.run(browser, "/references.js", "frame");
    assert.equal(seen.built, 500);
    assert.equal(seen.lines, 500);
    assert.ok(seen.inOrder);
    assert.deepEqual(seen.rendered, ["1: 9 bytes", "2: 12 bytes"]);
    assert.equal(seen.renders, 2);
    assert.deepEqual(seen.tables, EMPTY);
  });
}
