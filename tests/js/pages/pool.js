// The worker pool's scenarios, in a page with the web build loaded as
// `window.lib` (tests/js/pool.test.mjs runs them in Chromium and Firefox).
// Each returns what it saw; the test asserts.
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(condition, ms = 10000) {
  const deadline = performance.now() + ms;
  while (!condition()) {
    if (performance.now() > deadline) throw new Error("timed out waiting");
    await sleep(10);
  }
}

const outcome = (promise) => promise.then((value) => ({ value }), (error) => ({ code: error.code, message: error.message }));

export async function poolScenarios() {
  const { workerPool } = await import("/pkg/pool.js");
  const { compiledModule } = window.lib;
  const factory = () => new Worker("/pool-worker.js", { type: "module", name: "module" });
  const seen = {};

  const pool = workerPool(factory, { size: 4, module: compiledModule() });
  const replaced = [];
  pool.on("replaced", ({ reason }) => replaced.push(reason));
  try {
    // Calls spread over the four workers.
    const ids = await Promise.all(Array.from({ length: 8 }, () => pool.request("slow", [100])));
    seen.spread = new Set(ids).size;

    // One worker terminated mid-call: its two calls fail, the other six are answered, a fresh worker takes new calls.
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
    // One call in flight on each worker; then one `counts` to each (the least busy takes the next).
    const busy = Promise.all(Array.from({ length: 4 }, () => pool.request("slow", [200])));
    const counts = await Promise.all(Array.from({ length: 4 }, () => pool.request("counts")));
    seen.countsFromEach = new Set((await busy)).size;
    seen.counts = counts;

    // A worker whose uncaught error reaches the page is replaced; its call fails.
    seen.crash = await outcome(pool.request("crash"));
    await until(() => replaced.includes("error") && pool.workers.length === 4);

    // Every worker at once.
    const all = Array.from({ length: 4 }, () => outcome(pool.request("slow", [400])));
    await sleep(100);
    for (const worker of pool.workers) worker.terminate();
    seen.allDied = (await Promise.all(all)).map((o) => o.code);
    seen.afterAllDied = await pool.request("tiny");
    seen.replaced = replaced.length;

    // Destroy: what waits fails with DESTROYED.
    const pending = outcome(pool.request("slow", [1000]));
    await sleep(20);
    pool.destroy();
    seen.destroyed = (await pending).code;
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

  // 32 workers (the module handed to each), 256 calls.
  const big = workerPool(factory, { size: 32, module: compiledModule() });
  try {
    const answers = await Promise.all(Array.from({ length: 256 }, () => big.request("whoami")));
    seen.big = { answers: answers.length, workers: new Set(answers).size };
  } finally {
    big.destroy();
  }
  return seen;
}
