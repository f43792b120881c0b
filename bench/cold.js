// Cold start: from `new Worker()`, and from an iframe's creation, to the
// first answered call, for each variant, `starts` times with a fresh worker
// or frame each, the variants taken in turn; the median, in ms. The workers
// and frames are bundled by bench/run.mjs into dist/workers/ and dist/frames/.
import init, { compiledModule, JSONRPCClient, windowTransport, workerTransport } from "/pkg/wiggum_rpc.js";
import { JSONRPCClient as JrpcClient } from "json-rpc-2.0";
import * as Comlink from "comlink";
import { createBirpc } from "birpc";
import { newMessagePortRpcSession } from "capnweb";
import { connect, WindowMessenger, WorkerMessenger } from "penpal";
import { defineProxy } from "comctx";
import { COMCTX, comctxAdapter } from "./comctx.js";
import { order } from "./order.js";

/** comctx's injector on `adapter` (the page side needs no copy of the API: its README's separate definitions). */
function comctxRemote(adapter) {
  const [, inject] = defineProxy(() => ({}), COMCTX);
  return inject(adapter);
}

/** A penpal connection's first call, the connection destroyed once answered. */
async function penpalCall(messenger) {
  const connection = connect({ messenger });
  try {
    const remote = await connection.promise;
    return await remote.add(1, 2);
  } finally {
    connection.destroy();
  }
}

/** How each variant makes its first call to a fresh worker; resolves with the answer. */
const inWorker = {
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
  birpc(worker) {
    return createBirpc({}, { post: (data) => worker.postMessage(data), on: (handler) => (worker.onmessage = ({ data }) => handler(data)) }).add(1, 2);
  },
  "Cap'n Web"(worker) {
    const { port1, port2 } = new MessageChannel();
    worker.postMessage(port2, [port2]);
    return newMessagePortRpcSession(port1).add(1, 2);
  },
  penpal(worker) {
    return penpalCall(new WorkerMessenger({ worker }));
  },
  comctx(worker) {
    return comctxRemote(comctxAdapter((message, transfer) => worker.postMessage(message, transfer), worker)).add(1, 2);
  },
  "wiggum-rpc"(worker) {
    const client = new JSONRPCClient(workerTransport(worker));
    return client.request("add", [1, 2]).finally(() => client.destroy());
  },
  "wiggum-rpc, own fetch"(worker) {
    return inWorker["wiggum-rpc"](worker);
  },
  "wiggum-rpc, module shared"(worker) {
    worker.postMessage(compiledModule());
    return inWorker["wiggum-rpc"](worker);
  },
  "wiggum-rpc, files as served"(worker) {
    return inWorker["wiggum-rpc"](worker);
  },
};

/** Resolves once `frame` posts `word` (a window's messages are not queued for a listener to come). */
function heard(frame, word) {
  return new Promise((resolve) => {
    addEventListener("message", function listener({ data, source }) {
      if (source !== frame.contentWindow || data !== word) return;
      removeEventListener("message", listener);
      resolve();
    });
  });
}

/** The same for a fresh iframe, created (not yet loaded) when each is called. */
const inFrame = {
  async raw(frame) {
    await heard(frame, "ready");
    return new Promise((resolve) => {
      addEventListener("message", function listener({ data, source }) {
        if (source !== frame.contentWindow || data?.id !== 1) return;
        removeEventListener("message", listener);
        resolve(data.result);
      });
      frame.contentWindow.postMessage({ id: 1, method: "add", params: [1, 2] }, "*");
    });
  },
  async comlink(frame) {
    await heard(frame, "ready");
    return Comlink.wrap(Comlink.windowEndpoint(frame.contentWindow)).add(1, 2);
  },
  async "json-rpc-2.0"(frame) {
    await heard(frame, "ready");
    const listener = ({ data, source }) => source === frame.contentWindow && client.receive(data);
    const client = new JrpcClient((request) => frame.contentWindow.postMessage(request, "*"));
    addEventListener("message", listener);
    return client.request("add", [1, 2]).finally(() => removeEventListener("message", listener));
  },
  async birpc(frame) {
    await heard(frame, "ready");
    let listener;
    const remote = createBirpc({}, {
      post: (data) => frame.contentWindow.postMessage(data, "*"),
      on: (handler) => addEventListener("message", (listener = ({ data, source }) => source === frame.contentWindow && handler(data))),
    });
    return remote.add(1, 2).finally(() => removeEventListener("message", listener));
  },
  async "Cap'n Web"(frame) {
    await heard(frame, "ready");
    const { port1, port2 } = new MessageChannel();
    frame.contentWindow.postMessage(port2, "*", [port2]);
    return newMessagePortRpcSession(port1).add(1, 2);
  },
  // penpal's own handshake: the frame's SYN, when it comes, is answered (the page's first is lost on the frame's blank document).
  penpal(frame) {
    return penpalCall(new WindowMessenger({ remoteWindow: frame.contentWindow, allowedOrigins: [location.origin] }));
  },
  // A window's messages are not queued for a listener to come, and comctx has
  // no handshake (its heartbeat, off here, pings every 300 ms): like the other
  // libraries without one, the page waits for the frame's word.
  async comctx(frame) {
    await heard(frame, "ready");
    const send = (message) => frame.contentWindow.postMessage(message, location.origin);
    return comctxRemote(comctxAdapter(send, window, ({ source }) => source === frame.contentWindow)).add(1, 2);
  },
  "wiggum-rpc"(frame) {
    const client = new JSONRPCClient(windowTransport(frame.contentWindow, window, location.origin));
    return client.request("add", [1, 2]).finally(() => client.destroy());
  },
  "wiggum-rpc, module shared"(frame) {
    heard(frame, "module?").then(() => frame.contentWindow.postMessage(compiledModule(), location.origin));
    return inFrame["wiggum-rpc"](frame);
  },
};

const SCRIPTS = { "Cap'n Web": "capnweb", "wiggum-rpc, own fetch": "wiggum-rpc-own", "wiggum-rpc, module shared": "wiggum-rpc-shared", "wiggum-rpc, files as served": "wiggum-rpc-served" };
const script = (variant) => SCRIPTS[variant] ?? variant;

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

/**
 * `starts` rounds (after one warm-up round, which fills the HTTP cache where
 * there is one), each starting every variant once in a shuffled order, so
 * that a slow second of a noisy machine costs every variant alike; each
 * variant's median.
 */
async function timed(starts, variants, once) {
  const names = Object.keys(variants);
  const times = names.map(() => []);
  for (let start = 0; start <= starts; start++) {
    for (const v of order(names.length, start + 1)) {
      const started = performance.now();
      const answer = await once(variants[names[v]], names[v]);
      const ms = performance.now() - started;
      if (answer !== 3) throw new Error(`${names[v]}: wrong answer ${answer}`);
      if (start > 0) times[v].push(ms);
    }
  }
  return Object.fromEntries(names.map((name, v) => [name, median(times[v])]));
}

/** `{ worker: { [variant]: median ms }, iframe: { [variant]: median ms } }`. */
window.runColdStart = async function runColdStart({ starts = 20 } = {}) {
  await init();
  const worker = await timed(starts, inWorker, async (call, variant) => {
    const worker = new Worker(`dist/workers/${script(variant)}.js`, { type: "module" });
    try {
      return await call(worker);
    } finally {
      worker.terminate();
    }
  });
  const iframe = await timed(starts, inFrame, async (call, variant) => {
    const frame = document.createElement("iframe");
    frame.src = `dist/frames/${script(variant)}.html`;
    document.body.append(frame);
    try {
      return await call(frame);
    } finally {
      frame.remove();
    }
  });
  return { worker, iframe };
};
