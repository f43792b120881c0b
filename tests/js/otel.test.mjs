// `wiggum-rpc/otel` in Node: one user action through a worker_threads
// Worker, a WebSocket to a hub and the hub's call to another client is one
// trace, every span the child of the one before, with the JSON-RPC
// semantic conventions, and the error code of a failed call on each span
// it failed through. Spans go to @opentelemetry/sdk-trace-base's in-memory
// exporter (the worker's own, read back at the end).
import { once } from "node:events";
import { test } from "node:test";
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";
import { WebSocket, WebSocketServer } from "ws";

const require = createRequire(import.meta.url);
const { Peer, RPCError, workerTransport } = require("../../pkg/node/wiggum_rpc.cjs");
const { webSocketTransport } = require("../../pkg/node/websocket.cjs");
const { Hub } = require("../../pkg/node/hub.cjs");
const { instrument } = require("../../pkg/node/otel.cjs");
const { exportedSpans, startTracing } = require("./otel-setup.cjs");

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const NAVIGATION_FAILED = -32006;

test("page → worker → WebSocket → hub → another client: one trace, each span the child of the one before", async () => {
  const exporter = startTracing("page and server");
  const wss = new WebSocketServer({ host: "127.0.0.1", port: 0 });
  await once(wss, "listening");
  const url = `ws://127.0.0.1:${wss.address().port}/`;

  // The hub, traced; it relays `render` to the client that registered as the preview.
  const hub = instrument(new Hub().attach(wss));
  let preview;
  hub.method("iAmThePreview", (params, { client }) => {
    preview = client;
    return true;
  });
  hub.method("relay", (params) => hub.request(preview, "render", params));

  // Another client: the preview, traced.
  const previewTransport = webSocketTransport(url, { WebSocket, handshake: "announce" });
  const previewPeer = instrument(new Peer(previewTransport));
  previewPeer.method("render", ([page]) => {
    if (page === "missing") throw new RPCError(NAVIGATION_FAILED, "No such page", { page });
    return `<h1>${page}</h1>`;
  });
  await new Promise((resolve) => previewPeer.on("open", resolve));
  await sleep(50);
  await previewPeer.request("iAmThePreview");
  exporter.reset();

  // The worker: traced with its own provider, a client of the hub.
  const worker = new Worker(new URL("./otel-worker.cjs", import.meta.url), { workerData: { url } });
  const page = instrument(new Peer(workerTransport(worker)));
  try {
    assert.equal(await page.request("ready", [], { timeout: 10_000 }), true);
    const html = await page.request("build", ["home"]);
    assert.equal(html, "<h1>home</h1>");
    const failed = await page.request("build", ["missing"]).catch((e) => e);
    assert.equal(failed.code, NAVIGATION_FAILED);

    const spans = [...exportedSpans(exporter), ...(await page.request("spans"))].filter((span) => span.name !== "ready" && span.name !== "spans");
    const chains = chainsOf(spans);
    assert.equal(chains.length, 2, JSON.stringify(spans));
    for (const [chain, failedCode] of [[chains[0], undefined], [chains[1], NAVIGATION_FAILED]]) {
      assert.deepEqual(chain.map(({ name, kind, where }) => `${where} ${kind} ${name}`), [
        "page and server CLIENT build",
        "worker SERVER build",
        "worker CLIENT relay",
        "page and server SERVER relay",
        "page and server CLIENT render",
        "page and server SERVER render",
      ]);
      for (const span of chain) {
        assert.equal(span.attributes["rpc.system"], "jsonrpc");
        assert.equal(span.attributes["rpc.method"], span.name);
        assert.match(String(span.attributes["rpc.jsonrpc.request_id"]), /^\d+$/);
        assert.equal(span.attributes["rpc.jsonrpc.error_code"], failedCode, `${span.where} ${span.name}`);
        assert.equal(span.status, failedCode === undefined ? "UNSET" : "ERROR");
      }
    }
  } finally {
    page.destroy();
    await worker.terminate();
    previewPeer.destroy();
    hub.destroy();
    for (const socket of wss.clients) socket.terminate();
    await new Promise((resolve) => wss.close(resolve));
  }
});

// The spans of each user action, in the order they started: its root (a
// page's client span of \`build\`), then each child in turn, each checked
// to share the root's trace.
function chainsOf(spans) {
  const roots = spans.filter((span) => span.name === "build" && span.kind === "CLIENT" && span.parent === undefined);
  return roots.sort((a, b) => a.start - b.start).map((root) => {
    const chain = [];
    for (let span = root; span !== undefined; span = spans.find((child) => child.parent === chain.at(-1).id)) {
      assert.equal(span.trace, root.trace, "one trace");
      chain.push(span);
    }
    return chain;
  });
}
