// Cold start: from `new Worker()` to the first answered call, for each
// variant, `starts` times with a fresh worker each; the median, in ms. The
// workers are bundled by bench/run.mjs into dist/workers/.
import init, { compiledModule, JSONRPCClient, workerTransport } from "/pkg/wiggum_rpc.js";
import { JSONRPCClient as JrpcClient } from "json-rpc-2.0";
import * as Comlink from "comlink";

/** Opens a client on a fresh worker; resolves with the first call's answer. */
const firstCall = {
  raw(worker) {
    return new Promise((resolve) => {
      worker.onmessage = ({ data }) => resolve(data.result);
      worker.postMessage({ id: 1, method: "add", params: [1, 2] });
    });
  },
  comlink(worker) {
    return Comlink.wrap(worker).add(1, 2);
  },
  "json-rpc-2.0"(worker) {
    const client = new JrpcClient((request) => worker.postMessage(request));
    worker.onmessage = ({ data }) => client.receive(data);
    return client.request("add", [1, 2]);
  },
  "wiggum-rpc"(worker) {
    const client = new JSONRPCClient(workerTransport(worker));
    return client.request("add", [1, 2]).finally(() => client.destroy());
  },
  "wiggum-rpc, module shared"(worker) {
    worker.postMessage(compiledModule());
    return firstCall["wiggum-rpc"](worker);
  },
  "wiggum-rpc, files as served"(worker) {
    return firstCall["wiggum-rpc"](worker);
  },
};

const SCRIPTS = { "wiggum-rpc, module shared": "wiggum-rpc-shared", "wiggum-rpc, files as served": "wiggum-rpc-served" };
const script = (variant) => SCRIPTS[variant] ?? variant;

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

/** `{ [variant]: median ms }`; the first start of each is a warm-up (it fills the HTTP cache, where there is one). */
window.runColdStart = async function runColdStart({ starts = 10 } = {}) {
  await init();
  const results = {};
  for (const [variant, call] of Object.entries(firstCall)) {
    const times = [];
    for (let start = 0; start <= starts; start++) {
      const started = performance.now();
      const worker = new Worker(`dist/workers/${script(variant)}.js`, { type: "module" });
      const answer = await call(worker);
      const ms = performance.now() - started;
      worker.terminate();
      if (answer !== 3) throw new Error(`${variant}: wrong answer ${answer}`);
      if (start > 0) times.push(ms);
    }
    results[variant] = median(times);
  }
  return results;
};
