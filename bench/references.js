// The callback-by-reference measure of the benchmark page: a worker calls
// back a function of this page, once passed by reference, through wiggum-rpc's
// references flavour (`reference(fn)`, served at /pkg-references/), comlink
// (`Comlink.proxy(fn)`) and Cap'n Web (a function stub); and, as wiggum-rpc's
// baseline on the same connection, a method of this page called by name.
// Each worker is started per run; bench/run.mjs prints the table.
import * as Comlink from "comlink";
import { newMessagePortRpcSession } from "capnweb";
import { order } from "./order.js";

const callback = (i) => i + 1;
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/**
 * A variant's worker, and a promise that rejects if it fails (a script that
 * does not load): each call races it, so that a broken build ends the run
 * with an error instead of a call that never answers.
 */
function worker(name) {
  const started = new Worker(`dist/workers/callback-${name}.js`, { type: "module" });
  const failed = new Promise((_, reject) => {
    started.addEventListener("error", (event) => reject(new Error(`callback-${name}.js: ${event.message || "failed to load"}`)));
  });
  failed.catch(() => {});
  return [started, failed];
}

/** Each variant starts its worker and resolves with `run(calls, width)` (one call from the page, `calls` back) plus `close()`. */
async function variants() {
  // Loaded here, not with the page: the flavour's glue stays out of the other measures' page.
  const { default: init, Peer, workerTransport } = await import("/pkg-references/wiggum_rpc.js");
  const { reference } = await import("/pkg-references/remote.js");
  await init();
  const [wiggumWorker, wiggumFailed] = worker("wiggum");
  // Far above a slice's time: only a worker that never answers meets it.
  const peer = new Peer(workerTransport(wiggumWorker), { timeout: 60000 });
  peer.method("callback", ([i]) => callback(i));
  const [comlinkWorker, comlinkFailed] = worker("comlink");
  const comlink = Comlink.wrap(comlinkWorker);
  const [capnwebWorker, capnwebFailed] = worker("capnweb");
  const { port1, port2 } = new MessageChannel();
  capnwebWorker.postMessage(port2, [port2]);
  const capnweb = newMessagePortRpcSession(port1);
  return {
    "wiggum-rpc, reference(fn)": {
      run: (calls, width) => Promise.race([wiggumFailed, peer.request("callStub", [calls, width, reference(callback)])]),
      close: () => (peer.destroy(), wiggumWorker.terminate()),
    },
    "wiggum-rpc, peer.request by name": { run: (calls, width) => Promise.race([wiggumFailed, peer.request("callPage", [calls, width])]), close() {} },
    "comlink, Comlink.proxy(fn)": {
      run: (calls, width) => Promise.race([comlinkFailed, comlink.callStub(calls, width, Comlink.proxy(callback))]),
      close: () => (comlink[Comlink.releaseProxy](), comlinkWorker.terminate()),
    },
    "Cap'n Web, function stub": {
      run: (calls, width) => Promise.race([capnwebFailed, capnweb.callStub(calls, width, callback)]),
      close: () => (capnweb[Symbol.dispose](), capnwebWorker.terminate()),
    },
  };
}

/** As the page's `idle()`: the slices before leave nothing queued (Cap'n Web's releases) or uncollected for the next. */
function idle() {
  globalThis.gc?.();
  return new Promise((resolve) => setTimeout(resolve, 10));
}

/**
 * Runs each measure (`only`: one, by its label) `runs` times; medians in
 * callbacks a second, each timed from the page's call to its answer (the
 * reference's setup and release counted, over `calls` callbacks). Slices
 * taken in turn in a shuffled order, as in `runBenchmark`.
 */
window.runReferences = async function runReferences({ smoke = false, runs = 5, slices = smoke ? 1 : 10, only, firstRun = 0 } = {}) {
  // Smoke: a hundredth, as each run here also starts three workers (the smoke run stays short).
  const scale = smoke ? 0.01 : 1;
  const measures = [
    ["sequential", { calls: Math.ceil(10000 * scale), width: 1 }],
    ["64 in flight", { calls: Math.ceil(30000 * scale), width: 64 }],
  ].filter(([label]) => only === undefined || only.split(",").includes(label));
  const samples = {};
  for (let run = firstRun; run < firstRun + runs; run++) {
    for (const [label, { calls, width }] of measures) {
      const channels = await variants();
      const names = Object.keys(channels);
      const sliceCalls = Math.ceil(calls / slices);
      for (const name of names) await channels[name].run(sliceCalls, width); // warm-up (and the workers' start)
      const seconds = names.map(() => 0);
      for (let slice = 0; slice < slices; slice++) {
        for (const v of order(names.length, run * slices + slice + 1)) {
          await idle();
          const started = performance.now();
          if ((await channels[names[v]].run(sliceCalls, width)) !== sliceCalls) throw new Error(`${names[v]}: calls lost`);
          seconds[v] += (performance.now() - started) / 1000;
        }
      }
      for (const name of names) channels[name].close();
      names.forEach((name, v) => ((samples[label] ??= {})[name] ??= []).push((sliceCalls * slices) / seconds[v]));
    }
  }
  const results = {};
  for (const [label, byVariant] of Object.entries(samples)) {
    results[label] = Object.fromEntries(Object.entries(byVariant).map(([name, values]) => [name, median(values)]));
  }
  return { runs, smoke, results };
};
