// The pool benchmark: wiggum-rpc's `workerPool` beside workerpool, in this
// page, at 1, 2 and 4 workers: calls a second on CPU-bound calls (a few
// milliseconds of arithmetic each) and on tiny ones, all made at once (each
// pool queues them and gives a worker one at a time, its default). Both
// pools live side by side and take turns, run by run. Medians of `runs`;
// bench/run.mjs prints the table.
import init, { compiledModule } from "/pkg/wiggum_rpc.js";
import { workerPool } from "/pkg/pool.js";
import workerpool from "workerpool";

const WORKERS = [1, 2, 4];
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

const pools = {
  "wiggum-rpc": (size) => {
    const pool = workerPool(() => new Worker("dist/workers/pool-wiggum.js", { type: "module" }), { size, module: compiledModule() });
    return { exec: (method, args) => pool.request(method, args, { timeout: 0 }), close: () => pool.destroy() };
  },
  workerpool: (size) => {
    const pool = workerpool.pool(new URL("dist/workers/pool-workerpool.js", location.href).href, {
      minWorkers: size,
      maxWorkers: size,
      workerType: "web",
      workerOpts: { type: "module" },
    });
    return { exec: (method, args) => pool.exec(method, args), close: () => pool.terminate(true) };
  },
};

/** Calls a second: `count` calls of `method`, all in flight at once. */
async function rate(pool, method, args, count) {
  const started = performance.now();
  await Promise.all(Array.from({ length: count }, () => pool.exec(method, args)));
  return count / ((performance.now() - started) / 1000);
}

window.runPool = async function runPool({ smoke = false, runs = 3 } = {}) {
  // The module this page hands each worker: initialised here, whatever ran before (`--only=pool` runs nothing else).
  await init();
  const rounds = smoke ? 100_000 : 2_000_000;
  const names = Object.keys(pools);
  const results = Object.fromEntries(names.map((name) => [name, {}]));
  for (const size of WORKERS) {
    // Both pools at once, their runs taken in turn (the order swapped each
    // run): a stretch of a loaded machine falls on both alike.
    const made = Object.fromEntries(names.map((name) => [name, pools[name](size)]));
    const cpu = Object.fromEntries(names.map((name) => [name, []]));
    const tiny = Object.fromEntries(names.map((name) => [name, []]));
    try {
      // Every worker up and warm.
      for (const name of names) await rate(made[name], "work", [rounds], size * 2);
      for (let run = 0; run < (smoke ? 1 : runs); run++) {
        for (const name of run % 2 === 0 ? names : [...names].reverse()) {
          cpu[name].push(await rate(made[name], "work", [rounds], smoke ? size * 2 : size * 16));
          tiny[name].push(await rate(made[name], "tiny", [], smoke ? 50 : 5000));
        }
      }
      for (const name of names) results[name][size] = { cpu: median(cpu[name]), tiny: median(tiny[name]) };
    } finally {
      for (const name of names) made[name].close();
    }
  }
  return { workers: WORKERS, rounds, results };
};
