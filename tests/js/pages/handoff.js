// The module hand-off, seen from the page: a worker that loads the package
// itself asks for the page's compiled module, and gets it from a wiggum-rpc
// page of the same build; a page that does not answer (a plain listener,
// json-rpc-2.0) costs it only its own fetch; a question for another build is
// not answered. The worker's .wasm is
// served SLOW_MS late, so which way it loaded shows in how long it took.
// Runs in a page with the web build loaded as `window.lib`.
export const SLOW_MS = 1500;
const slowWasm = encodeURIComponent(`/pkg/wiggum_rpc_bg.wasm?delay=${SLOW_MS}`);
const worker = () => new Worker(`/handoff-worker.js?wasm=${slowWasm}`, { type: "module" });
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** A wiggum-rpc page: the worker's first answer, and how long it took. */
async function fromOurPage() {
  const started = performance.now();
  const w = worker();
  const peer = new window.lib.Peer(window.lib.workerTransport(w), { timeout: 10_000 });
  try {
    const answer = await peer.request("add", [1, 2]);
    return { answer, ms: Math.round(performance.now() - started) };
  } finally {
    peer.destroy();
    w.terminate();
  }
}

/** A page that is not wiggum-rpc: plain postMessage, recording all it hears. */
async function fromAStranger() {
  const started = performance.now();
  const w = worker();
  const heard = [];
  try {
    const answer = await new Promise((resolve) => {
      w.onmessage = ({ data }) => {
        heard.push(data);
        if (data?.id === 1) resolve(data.result);
      };
      w.postMessage({ jsonrpc: "2.0", method: "add", params: [1, 2], id: 1 });
    });
    const question = heard.find((data) => data?.method === "$/module");
    return {
      answer,
      ms: Math.round(performance.now() - started),
      first: heard[0]?.method,
      question: question && { keys: Object.keys(question).sort(), build: typeof question.params?.build },
    };
  } finally {
    w.terminate();
  }
}

/**
 * A page that speaks JSON-RPC with json-rpc-2.0 (bundled for the browser by
 * the test, at /vendor/json-rpc-2.0.js): what the worker posts it, and what
 * it posts back; its call is answered once the worker has fetched its own .wasm.
 */
async function fromJsonRpc2() {
  const { JSONRPCClient, JSONRPCServer, JSONRPCServerAndClient } = await import("/vendor/json-rpc-2.0.js");
  const started = performance.now();
  const w = worker();
  const heard = [];
  const sent = [];
  const peer = new JSONRPCServerAndClient(
    new JSONRPCServer(),
    new JSONRPCClient((message) => {
      sent.push(message.method ?? (message.error ? `error ${message.error.code}` : "result"));
      w.postMessage(message);
    }),
  );
  w.onmessage = ({ data }) => {
    heard.push(data?.method ?? "answer");
    peer.receiveAndSend(data).catch(() => {});
  };
  try {
    const answer = await peer.request("add", [1, 2]);
    const ms = Math.round(performance.now() - started);
    await sleep(50); // anything it would still post in reply
    return { answer, ms, heard, sent };
  } finally {
    w.terminate();
  }
}

// A worker (not wiggum-rpc) that asks for another build's module, then calls
// `add`, and says what came back.
const ASKS_WRONG_BUILD = `
  const heard = [];
  self.onmessage = ({ data }) => {
    heard.push(data);
    if (data?.id === 1) setTimeout(() => postMessage({ report: heard.map((m) => m?.method ?? (m?.id !== undefined ? "answer" : typeof m)) }), 200);
  };
  postMessage({ jsonrpc: "2.0", method: "$/module", params: { build: "another build" } });
  postMessage({ jsonrpc: "2.0", method: "add", params: [1, 2], id: 1 });
`;

/** A question for another build: not answered, and not delivered to the page's endpoint as a call. */
async function wrongBuild() {
  const url = URL.createObjectURL(new Blob([ASKS_WRONG_BUILD], { type: "text/javascript" }));
  const w = new Worker(url);
  const peer = new window.lib.Peer(window.lib.workerTransport(w));
  const notified = [];
  peer.method("add", ([a, b]) => a + b);
  peer.onNotify("$/module", (params) => notified.push(params));
  try {
    const report = await new Promise((resolve) => w.addEventListener("message", ({ data }) => data?.report && resolve(data.report)));
    await sleep(50);
    return { report, notified: notified.length };
  } finally {
    peer.destroy();
    w.terminate();
    URL.revokeObjectURL(url);
  }
}

export async function handOff() {
  return { ours: await fromOurPage(), stranger: await fromAStranger(), jsonRpc2: await fromJsonRpc2(), wrongBuild: await wrongBuild() };
}
