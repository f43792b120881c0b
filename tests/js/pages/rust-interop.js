// The Rust API (wiggum-rpc-web, in tests/rust-app) meeting the npm package
// in JS and a stranger, run in a page with the web build as `window.lib`
// and the Rust app served at /rust/. Each export returns what both sides saw.
const rustApp = async () => {
  const app = await import("/rust/rust_app.js");
  await app.default();
  return app;
};

const asError = (error) => ({ code: error.code, message: error.message, data: error.data });

/** A Rust page ↔ a JS worker. */
export async function rustPageJsWorker() {
  const app = await rustApp();
  return app.pageCallsJsWorker(new Worker("/rust-js-worker.js", { type: "module" }));
}

/** A JS page ↔ a Rust worker: called at once, while the worker's module still loads. */
export async function jsPageRustWorker() {
  const { Peer, workerTransport } = window.lib;
  const worker = new Worker("/rust-worker.js", { type: "module" });
  const peer = new Peer(workerTransport(worker));
  peer.method("whoami", () => "the JS page");
  const report = {
    sum: await peer.request("add", { a: 2, b: 3 }).catch(asError),
    failed: await peer.request("fail").catch(asError),
    blob: await peer.request("blob", new Blob(["from JS"])).then(([isBlob, blob]) => [isBlob, blob instanceof Blob, blob.size]),
    badParams: await peer.request("add", { a: "three" }).catch(asError),
    missing: await peer.request("nope").catch(asError),
  };
  const hanging = peer.request("hang", undefined, { timeout: 20000 }).catch(asError);
  // Ended by the worker's end, not by its timeout: the Rust side's presence was named in its hello.
  await new Promise((resolve) => setTimeout(resolve, 300));
  const started = performance.now();
  worker.terminate();
  report.gone = await hanging;
  report.goneMs = performance.now() - started;
  peer.destroy();
  return report;
}

/** A Rust page ↔ a JS iframe, the frame still loading when the Rust Peer is made. */
export async function rustPageJsFrame() {
  const app = await rustApp();
  const frame = document.createElement("iframe");
  document.body.append(frame);
  frame.src = "/rust-js-frame.html";
  try {
    return await app.pageCallsJsFrame(frame.contentWindow, location.origin);
  } finally {
    frame.remove();
  }
}

/** A Rust page ↔ json-rpc-2.0 on a MessageChannel: what the stranger received, and the Rust side's report. */
export async function rustTowardStranger() {
  const app = await rustApp();
  const { JSONRPCClient, JSONRPCErrorException, JSONRPCServer, JSONRPCServerAndClient } = await import("/stranger/json-rpc-2.0.js");
  const { port1, port2 } = new MessageChannel();
  const stranger = new JSONRPCServerAndClient(new JSONRPCServer(), new JSONRPCClient((request) => port1.postMessage(request)));
  const received = [];
  port1.onmessage = ({ data }) => {
    received.push(data);
    stranger.receiveAndSend(data);
  };
  stranger.addMethod("add", ({ a, b }) => a + b);
  stranger.addMethod("fail", () => {
    throw new JSONRPCErrorException("gate failed", -32002, ["lint"]);
  });
  stranger.addMethod("callBack", async () => ({ sum: await stranger.request("add", { a: 5, b: 6 }) }));
  const report = await app.towardStranger(port2);
  port1.close();
  return { report, received };
}

/** The "From Rust" guide's example: a Rust page asking a Rust worker. */
export async function guideExample() {
  const app = await rustApp();
  const worker = new Worker("/rust-math-worker.js", { type: "module" });
  try {
    return await app.askMath(worker);
  } finally {
    worker.terminate();
  }
}
