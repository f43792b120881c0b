// `wiggum-rpc/otel` in Chromium and Firefox: a page → its worker → a
// WebSocket → a Node hub → another client (Node) is one trace, each span
// the child of the one before, with the JSON-RPC attributes and a failed
// call's error code, the page and the worker on OpenTelemetry's web SDK
// (StackContextManager), the hub on its Node SDK. The pages run twice: on
// the oldest API the package takes (1.9, with SDK 2) and on the newest
// (1.10, with SDK 3, from tests/otel-newest).
import { once } from "node:events";
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { join } from "node:path";
import { WebSocket, WebSocketServer } from "ws";
import { build } from "esbuild";
import { launchChromium, startPagesServer } from "./browser.mjs";
import { launchFirefox } from "./firefox.mjs";

const require = createRequire(import.meta.url);
const { Peer, RPCError } = require("../../pkg/node/wiggum_rpc.cjs");
const { webSocketTransport } = require("../../pkg/node/websocket.cjs");
const { Hub } = require("../../pkg/node/hub.cjs");
const { instrument } = require("../../pkg/node/otel.cjs");
const { exportedSpans, startTracing } = require("./otel-setup.cjs");

const root = new URL("../..", import.meta.url).pathname;
const pages = join(root, "target/otel-pages");
const pagesNewest = join(root, "target/otel-pages-newest");
const newest = join(root, "tests/otel-newest");
const NAVIGATION_FAILED = -32006;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// The page and the worker, bundled with the SDK; the package as served
// (`/pkg/`), its otel entry with OpenTelemetry's API bundled in beside the
// SDK's (one copy), its other imports the served files.
const served = {
  name: "served-package",
  setup(builder) {
    const web = join(root, "pkg-web");
    builder.onResolve({ filter: /^\/pkg\/otel\.js$/ }, () => ({ path: join(web, "otel.js") }));
    builder.onResolve({ filter: /^\/pkg\// }, (args) => ({ path: args.path, external: true }));
    builder.onResolve({ filter: /^\.\/(wiggum_rpc|middleware)\.js$/ }, (args) => (args.importer.startsWith(web) ? { path: `/pkg/${args.path.slice(2)}`, external: true } : undefined));
  },
};

// The newest build: OpenTelemetry (the package's otel entry's API among
// it) from tests/otel-newest, and tracing-newest.js for tracing.js.
const onNewest = {
  name: "newest-opentelemetry",
  setup(builder) {
    builder.onResolve({ filter: /^\.\/tracing\.js$/ }, (args) => ({ path: join(args.resolveDir, "tracing-newest.js") }));
    builder.onResolve({ filter: /^@opentelemetry\// }, (args) =>
      args.pluginData === newest ? undefined : builder.resolve(args.path, { kind: args.kind, resolveDir: newest, pluginData: newest }));
  },
};

let server;
let wss;
let url;
let exporter;
let hub;
let preview;

before(async () => {
  for (const [outdir, plugins] of [[pages, [served]], [pagesNewest, [onNewest, served]]]) {
    await build({
      entryPoints: ["page", "worker"].map((name) => join(root, `tests/js/otel-pages/${name}.js`)),
      bundle: true,
      format: "esm",
      outdir,
      plugins,
      logLevel: "warning",
    });
  }
  server = await startPagesServer("pkg-web", [["/otel/", pages], ["/otel-newest/", pagesNewest]]);
  exporter = startTracing("server");
  wss = new WebSocketServer({ host: "127.0.0.1", port: 0 });
  await once(wss, "listening");
  url = `ws://127.0.0.1:${wss.address().port}/`;
  // The hub, traced: `relay` calls the client that said it is the preview.
  hub = instrument(new Hub().attach(wss, { origins: [new URL(server.url).origin] }));
  let previewId;
  hub.method("iAmThePreview", (params, { client }) => {
    previewId = client;
    return true;
  });
  hub.method("relay", (params) => hub.request(previewId, "render", params));
  preview = instrument(new Peer(webSocketTransport(url, { WebSocket, handshake: "wait" })));
  preview.method("render", ([page]) => {
    if (page === "missing") throw new RPCError(NAVIGATION_FAILED, "No such page", { page });
    return `<h1>${page}</h1>`;
  });
  await preview.request("iAmThePreview");
});

after(async () => {
  preview.destroy();
  hub.destroy();
  for (const socket of wss.clients) socket.terminate();
  await new Promise((resolve) => wss.close(resolve));
  await server.close();
});

// The spans of each user action, in order: its root (the page's client span
// of `build`), then each child in turn, each checked to share the root's trace.
function chainsOf(spans) {
  return spans.filter((span) => span.name === "build" && span.kind === "CLIENT" && span.parent === undefined).map((root) => {
    const chain = [];
    for (let span = root; span !== undefined; span = spans.find((child) => child.parent === chain.at(-1).id)) {
      assert.equal(span.trace, root.trace, "one trace");
      chain.push(span);
    }
    return chain;
  });
}

async function check(browser, run, version) {
  exporter.reset();
  const { html, failed, spans: crossed, api } = await run(url);
  assert.equal(api, version, `${browser}: the page's OpenTelemetry API`);
  // WebDriver hands undefined back as null.
  const spans = crossed.map((span) => ({ ...span, parent: span.parent ?? undefined }));
  assert.equal(html, "<h1>home</h1>", browser);
  assert.equal(failed, NAVIGATION_FAILED, browser);
  await sleep(50);
  const all = [...spans, ...exportedSpans(exporter).filter((span) => span.name === "relay" || span.name === "render")];
  const chains = chainsOf(all);
  assert.equal(chains.length, 2, `${browser}: ${JSON.stringify(all)}`);
  for (const chain of chains) {
    const failedChain = chain.some((span) => span.status === "ERROR");
    assert.deepEqual(chain.map(({ name, kind, where }) => `${where} ${kind} ${name}`), [
      "page CLIENT build",
      "worker SERVER build",
      "worker CLIENT relay",
      "server SERVER relay",
      "server CLIENT render",
      "server SERVER render",
    ], browser);
    for (const span of chain) {
      assert.equal(span.attributes["rpc.system"], "jsonrpc");
      assert.equal(span.attributes["rpc.method"], span.name);
      assert.match(String(span.attributes["rpc.jsonrpc.request_id"]), /^\d+$/);
      assert.equal(span.attributes["rpc.jsonrpc.error_code"], failedChain ? NAVIGATION_FAILED : undefined, `${browser}: ${span.where} ${span.name}`);
      assert.equal(span.status, failedChain ? "ERROR" : "UNSET");
    }
  }
  assert.deepEqual(chains.map((chain) => chain.some((span) => span.status === "ERROR")).sort(), [false, true]);
}

for (const [dir, version, sdk] of [["otel", "1.9.0", "SDK 2"], ["otel-newest", "1.10.0", "SDK 3"]]) {
  test(`Chromium, API ${version} and ${sdk}: page → worker → WebSocket → hub → another client is one trace`, async () => {
    const chromium = await launchChromium();
    try {
      const page = await chromium.newPage();
      await page.goto(`${server.url}blank.html`);
      await check("Chromium", (url) => page.evaluate(async ([url, dir]) => (await import(`/${dir}/page.js`)).run(url), [url, dir]), version);
    } finally {
      await chromium.close();
    }
  });

  test(`Firefox, API ${version} and ${sdk}: page → worker → WebSocket → hub → another client is one trace`, async () => {
    const firefox = await launchFirefox();
    try {
      const tab = await firefox.open(`${server.url}blank.html`);
      await check("Firefox", (url) => firefox.evaluate(tab, async (url, dir) => (await import(`/${dir}/page.js`)).run(url), url, dir), version);
    } finally {
      await firefox.close();
    }
  });
}
