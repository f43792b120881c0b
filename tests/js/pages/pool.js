// The worker pool's scenarios, in a page with the web build loaded as
// `window.lib` (tests/js/pool.test.mjs runs them in Chromium and Firefox).
// Each returns what it saw; the test asserts.
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(condition, ms = 20000) {
  const deadline = performance.now() + ms;
  while (!condition()) {
    if (performance.now() > deadline) throw new Error("timed out waiting");
    await sleep(10);
  }
}

const outcome = (promise) =>
  promise.then((value) => ({ value }), (error) => ({ code: error.code, message: error.message, data: error.data }));
const times = (count, call) => Array.from({ length: count }, call);
const factory = () => new Worker("/pool-worker.js", { type: "module", name: "module" });

async function pool(options) {
  const { workerPool } = await import("/pkg/pool.js");
  return workerPool(factory, { module: window.lib.compiledModule(), ...options });
}

export async function poolScenarios() {
  const { workerPool } = await import("/pkg/pool.js");
  const { compiledModule } = window.lib;
  const seen = {};

  const pool = workerPool(factory, { size: 4, module: compiledModule() });
  const replaced = [];
  pool.on("replaced", ({ reason }) => replaced.push(reason));
  try {
    // Calls spread over the four workers.
    const ids = await Promise.all(Array.from({ length: 8 }, () => pool.request("slow", [100])));
    seen.spread = new Set(ids).size;

    // One worker terminated mid-call: its call fails, the other seven (four of them waiting in the pool) are answered, a fresh worker takes new calls.
    let started;
    const failedAt = [];
    const calls = Array.from({ length: 8 }, () =>
      outcome(pool.request("slow", [400])).then((o) => (o.code === undefined || failedAt.push(performance.now() - started), o)));
    await sleep(100);
    const victim = pool.workers[0];
    started = performance.now();
    victim.terminate();
    const outcomes = await Promise.all(calls);
    seen.terminated = {
      failed: outcomes.filter((o) => o.code === -32095).length,
      answered: outcomes.filter((o) => typeof o.value === "string").length,
      failedWithinMs: Math.round(Math.max(...failedAt)),
    };
    await until(() => pool.workers.length === 4 && !pool.workers.includes(victim));
    seen.afterReplacement = new Set(await Promise.all(Array.from({ length: 8 }, () => pool.request("slow", [50])))).size;

    // Cancelling a call cancels it in its worker.
    const controller = new AbortController();
    const hung = outcome(pool.request("hang", [], { signal: controller.signal }));
    await sleep(50);
    controller.abort();
    seen.cancelled = (await hung).code;
    // A notification to every worker, then one to the least busy.
    seen.notifiedAll = pool.notify("note", [], { all: true });
    seen.notifiedOne = pool.notify("note", []);
    await sleep(50);
    // Four calls while every worker is free: one to each.
    const counts = await Promise.all(times(4, () => pool.request("counts")));
    seen.countsFromEach = new Set(counts.map(({ id }) => id)).size;
    seen.counts = counts;

    // A worker whose uncaught error reaches the page is replaced; its call fails.
    seen.crash = await outcome(pool.request("crash"));
    await until(() => replaced.includes("error") && pool.workers.length === 4);

    // Every worker at once (the crashed one's replacement may still be loading).
    const all = Array.from({ length: 4 }, () => outcome(pool.request("slow", [400])));
    await sleep(100);
    for (const worker of pool.workers) worker.terminate();
    seen.allDied = (await Promise.all(all)).map((o) => o.code);
    seen.afterAllDied = await pool.request("tiny");
    seen.replaced = replaced.length;

    // Destroy: calls in flight and waiting in the pool fail with DESTROYED.
    const pending = times(6, () => outcome(pool.request("slow", [1000])));
    await sleep(20);
    pool.destroy();
    seen.destroyed = [...new Set((await Promise.all(pending)).map((o) => o.code))];
    seen.afterDestroy = (await outcome(pool.request("tiny"))).code;
  } finally {
    pool.destroy();
  }

  // A call safe to repeat goes to the worker that replaces its dead one.
  const single = workerPool(factory, { size: 1, module: compiledModule() });
  try {
    await single.request("tiny");
    const retried = outcome(single.request("slow", [300], { retry: true }));
    await sleep(100);
    single.workers[0].terminate();
    seen.retried = typeof (await retried).value;
  } finally {
    single.destroy();
  }

  // A factory that throws: calls fail at once, with the reason.
  const broken = workerPool(() => {
    throw new Error("no workers today");
  }, { size: 2 });
  const errors = [];
  broken.on("error", ({ error }) => errors.push(error.message));
  seen.brokenFactory = await outcome(broken.request("tiny"));
  seen.brokenErrors = errors.length;
  broken.destroy();

  // A worker that never becomes ready (its script is missing): the pool keeps trying, slower each time.
  const missing = workerPool(() => new Worker("/no-such-worker.js", { type: "module" }), { size: 1, peer: { timeout: 500 } });
  const missingReplaced = [];
  missing.on("replaced", ({ reason }) => missingReplaced.push(reason));
  seen.missing = await outcome(missing.request("tiny"));
  await sleep(400);
  seen.missingReplacedFewTimes = missingReplaced.length >= 1 && missingReplaced.length <= 6;
  missing.destroy();

  // 32 workers (the module handed to each), 256 calls: the first 32 one to each.
  const big = workerPool(factory, { size: 32, module: compiledModule() });
  try {
    const answers = await Promise.all(Array.from({ length: 256 }, () => big.request("whoami")));
    seen.big = { answers: answers.length, workers: new Set(answers).size };
  } finally {
    big.destroy();
  }
  return seen;
}

// Calls wait in the pool, and each goes to the first worker free.
export async function poolQueue() {
  const seen = {};
  const two = await pool({ size: 2 });
  try {
    await Promise.all(times(2, () => two.request("tiny")));
    // One long call, then six short ones: all six go to the other worker, none waits behind the long one.
    const long = two.request("slow", [2000]);
    const shorts = await Promise.all(times(6, () => two.request("slow", [20])));
    const longId = await long;
    seen.shortsBesideLong = shorts.filter((id) => id !== longId).length;
    // At most one call at a time on a worker (the default).
    seen.peaks = (await Promise.all(times(2, () => two.request("counts")))).map(({ peak }) => peak);

    // Calls that end while they wait: aborted, timed out, aborted before they were made. They are never sent.
    const order = [];
    const busy = Promise.all(times(2, () => two.request("slow", [1500]))).then(() => order.push("busy"));
    const controller = new AbortController();
    const settled = (name, promise) => outcome(promise).then((o) => (order.push(name), o));
    const aborted = settled("aborted", two.request("mark", ["aborted"], { signal: controller.signal }));
    const timedOut = settled("timedOut", two.request("mark", ["timed out"], { timeout: 100 }));
    const already = outcome(two.request("mark", ["already aborted"], { signal: AbortSignal.abort("no") }));
    // Progress of a call that waited: heard once it runs.
    const progress = [];
    const stepped = outcome(two.request("steps", [3], { onProgress: (value) => progress.push(value) }));
    const kept = outcome(two.request("mark", ["kept"]));
    seen.pendingWhileBusy = two.pending;
    await sleep(50);
    controller.abort("changed my mind");
    await Promise.all([busy, aborted, timedOut, stepped, kept]);
    seen.queued = {
      aborted: await aborted,
      timedOut: await timedOut,
      already: await already,
      busyLast: order.indexOf("busy") === order.length - 1,
      progress,
      stepped: typeof (await stepped).value,
      kept: typeof (await kept).value,
    };
    const counts = await Promise.all(times(2, () => two.request("counts")));
    seen.marks = counts.flatMap(({ marks }) => marks).sort();
    seen.pendingAfter = two.pending;
  } finally {
    two.destroy();
  }

  // Three calls at a time on a worker, when asked.
  const wide = await pool({ size: 2, maxInFlightPerWorker: 3 });
  try {
    await Promise.all(times(2, () => wide.request("tiny")));
    await Promise.all(times(10, () => wide.request("slow", [300])));
    seen.widePeaks = (await Promise.all(times(2, () => wide.request("counts")))).map(({ peak }) => peak);
  } finally {
    wide.destroy();
  }
  try {
    await pool({ size: 1, maxInFlightPerWorker: 0 });
  } catch (error) {
    seen.badOption = error.name;
  }
  return seen;
}

// A worker whose handler never returns is ended once its call has timed out and the grace has passed.
export async function poolStuck() {
  const seen = {};
  const four = await pool({ size: 4 });
  const replaced = [];
  four.on("replaced", (event) => replaced.push(event));
  try {
    await Promise.all(times(4, () => four.request("tiny")));
    const before = four.workers;
    seen.spun = await outcome(four.request("spin", [], { timeout: 300 }));
    // The next short calls: answered by the other workers, none sent to the stuck one.
    const shorts = await Promise.all(times(6, () => outcome(four.request("whoami"))));
    seen.shorts = { answered: shorts.filter((o) => typeof o.value === "string").length, failed: shorts.filter((o) => o.code !== undefined) };
    await until(() => replaced.some(({ reason }) => reason === "stuck") && four.workers.length === 4);
    const stuck = replaced.find(({ reason }) => reason === "stuck").worker;
    seen.stuckWasOne = before.includes(stuck) && !four.workers.includes(stuck);
    seen.replacedReasons = replaced.map(({ reason }) => reason);
    // The replacement serves.
    seen.afterStuck = new Set(await Promise.all(times(8, () => four.request("slow", [50])))).size;
  } finally {
    four.destroy();
  }

  // The stuck worker's other calls: one fails, one safe to repeat goes to the replacement.
  const one = await pool({ size: 1, maxInFlightPerWorker: 3, timeoutGrace: 200 });
  try {
    await one.request("tiny");
    const spun = outcome(one.request("spin", [], { timeout: 300 }));
    const plain = outcome(one.request("whoami", [], { timeout: 0 }));
    const retried = outcome(one.request("whoami", [], { timeout: 0, retry: true }));
    seen.others = { spun: (await spun).code, plain: (await plain).code, retried: typeof (await retried).value };
  } finally {
    one.destroy();
  }
  return seen;
}

// Workers terminated before they have loaded: their calls fail at once, not at their timeout.
export async function poolLoading() {
  const seen = {};
  const two = await pool({ size: 2, peer: { timeout: 30_000 } });
  const replaced = [];
  two.on("replaced", ({ reason }) => replaced.push(reason));
  try {
    const calls = times(2, () => outcome(two.request("slow", [100])));
    // In the turn that made them: neither has run its script, let alone said hello.
    for (const worker of two.workers) worker.terminate();
    seen.codes = (await Promise.all(calls)).map((o) => o.code);
    seen.replaced = replaced;
    seen.after = new Set(await Promise.all(times(2, () => two.request("whoami")))).size;
  } finally {
    two.destroy();
  }
  return seen;
}

// A pool of 3 serving calls whose factory starts throwing once a worker is
// terminated: that slot's attempts, 50 ms apart and doubling, on their own
// (the two workers that stay answer calls all along), and what the pool told.
export async function poolBackoff() {
  const { workerPool } = await import("/pkg/pool.js");
  let broken = false;
  const attempts = [];
  const made = [];
  const three = workerPool(() => {
    if (broken) {
      attempts.push(performance.now());
      throw new Error("no more workers");
    }
    const worker = factory();
    made.push(worker);
    return worker;
  }, { size: 3, module: window.lib.compiledModule() });
  const events = [];
  three.on("replaced", ({ worker, reason }) => events.push({ kind: "replaced", reason, theEnded: worker === made[0] }));
  three.on("error", ({ error }) => events.push({ kind: "error", message: error.message }));
  try {
    await Promise.all(times(3, () => three.request("tiny")));
    broken = true;
    const ended = performance.now();
    made[0].terminate();
    // The other two keep answering while the third slot tries again.
    const calling = (async () => {
      while (performance.now() - ended < 2500) {
        await three.request("tiny");
        await sleep(20);
      }
    })();
    await calling;
    return {
      gaps: attempts.map((at, i) => Math.round(at - (i === 0 ? ended : attempts[i - 1]))),
      events: events.slice(0, 3),
      replacedCount: events.filter((event) => event.kind === "replaced").length,
      errors: events.filter((event) => event.kind === "error").length,
      workers: three.workers.length,
    };
  } finally {
    three.destroy();
  }
}
