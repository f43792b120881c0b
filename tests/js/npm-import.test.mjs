// The npm import path the Wiggum frontend uses: `npm pack` the package
// (pkg/), install the tarball into a throwaway app, type-check it with tsc,
// bundle it with esbuild, and call through a worker in Chromium; the same
// tarball in Node (`require` and `import`, over a MessageChannel and a `ws`
// WebSocket), under tsc's `node16` resolution, and through the ecosystem's
// package linters; the entries (the root, `websocket`, `remote`, `stream`,
// `framing`, `redis`, `web` and its subpaths) across them.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";
import { build } from "esbuild";
import { startServer } from "../../scripts/serve.mjs";
import { launchChromium } from "./browser.mjs";
import { serveMulOverWebSocket } from "./installed.mjs";

const root = resolve(new URL("../..", import.meta.url).pathname);
let app;
let tarball;

before(() => {
  app = mkdtempSync(join(tmpdir(), "wiggum-npm-app-"));
  const packed = JSON.parse(execFileSync("npm", ["pack", "--json", "--pack-destination", app], { cwd: join(root, "pkg") }));
  cpSync(join(root, "tests/npm-app"), app, { recursive: true });
  writeFileSync(join(app, "package.json"), JSON.stringify({ name: "npm-app", private: true, type: "module" }));
  tarball = join(app, packed[0].filename);
  // `ws` for the Node WebSocket scripts: the copy this repository pins.
  // With the peers an app of each kind has: ws, OpenTelemetry's API (wiggum-rpc/otel).
  execFileSync("npm", ["install", "--no-audit", "--no-fund", tarball, join(root, "node_modules/ws"), join(root, "node_modules/@opentelemetry/api")], { cwd: app, stdio: "pipe" });
});

after(() => rmSync(app, { recursive: true, force: true }));

test("the tarball holds the package and nothing else", () => {
  const entries = ["contracts", "http", "hub", "introspection", "middleware", "otel", "pool", "remote", "stream", "trace", "websocket"];
  const esm = entries.flatMap((name) => [`${name}.d.ts`, `${name}.js`, `${name}.js.map`]);
  const byName = (a, b) => (a < b ? -1 : a > b ? 1 : 0);
  // Each flavour: the package's root, and references/ (the same on a module that takes references).
  for (const [flavour, more] of [["", ["esbuild.cjs", "esbuild.d.cts", "esbuild.d.ts", "esbuild.js", "package.json", "references"]], ["references", []]]) {
    const dir = join(app, "node_modules/wiggum-rpc", flavour);
    assert.deepEqual(readdirSync(dir).filter((f) => !/^(README|LICENSE)/.test(f)).sort(), [
      ...esm, ...more, "framing.d.ts", "framing.js", "node",
      "redis.d.ts", "redis.js", "snippets", "web",
      "wiggum_rpc.d.ts", "wiggum_rpc.js", "wiggum_rpc_bg.js", "wiggum_rpc_bg.js.map", "wiggum_rpc_bg.wasm",
    ].sort(byName));
    assert.deepEqual(readdirSync(join(dir, "web")).sort(), [
      ...esm, "framing.d.ts", "framing.js", "node.cjs", "node.d.cts", "node.d.mts", "node.mjs", "redis.d.ts", "redis.js",
      "wiggum_rpc.d.ts", "wiggum_rpc.js", "wiggum_rpc.js.map", "wiggum_rpc_bg.wasm",
    ].sort(byName));
    // Without a bundler the glue is one module: its snippets are inside it.
    assert.doesNotMatch(readFileSync(join(dir, "web/wiggum_rpc.js"), "utf8"), /from\s*"\.\/snippets/);
    assert.deepEqual(readdirSync(join(dir, "node")).sort(), [
      ...[...entries, "framing", "redis"].flatMap((name) => [`${name}.cjs`, `${name}.d.cts`]),
      "wiggum_rpc.cjs", "wiggum_rpc.d.cts", "wiggum_rpc_bg.wasm",
    ].sort(byName));
  }
  // Only the references flavour's module takes references.
  const exportsOf = (flavour) => WebAssembly.Module.exports(new WebAssembly.Module(readFileSync(join(app, "node_modules/wiggum-rpc", flavour, "wiggum_rpc_bg.wasm")))).length;
  assert.ok(exportsOf("references") > exportsOf(""), "the references module has more exports");
  // The subpath entries are outside the module's imports: a page that does not import them does not load them.
  const wasm = new WebAssembly.Module(readFileSync(join(app, "node_modules/wiggum-rpc/wiggum_rpc_bg.wasm")));
  assert.deepEqual(WebAssembly.Module.imports(wasm).filter((i) => /websocket|http|remote|stream|trace|contracts|introspection/i.test(i.module)), []);
  // The minified glue maps back to readable source, shipped beside it.
  const maps = readdirSync(join(app, "node_modules/wiggum-rpc"), { recursive: true }).filter((f) => f.endsWith(".js.map"));
  const sources = maps.flatMap((f) => JSON.parse(readFileSync(join(app, "node_modules/wiggum-rpc", f), "utf8")).sourcesContent);
  assert.ok(sources.some((source) => source.includes("export class JSONRPCClient")));
  assert.ok(sources.some((source) => source.includes("export function envelopeReader")));
});

test("the types compile under strict tsc, and misuse does not", () => {
  try {
    execFileSync(process.execPath, [join(root, "node_modules/typescript/bin/tsc"), "-p", app], { stdio: "pipe" });
  } catch (error) {
    assert.fail(`tsc: ${error.stdout}${error.stderr}`);
  }
});

for (const [how, file] of [
  ["require", "node/require.cjs"],
  ["import", "node/import.mjs"],
  ["require of wiggum-rpc/web, then init()", "node/web-require.cjs"],
  ["import of wiggum-rpc/web, then init()", "node/web-import.mjs"],
  ["require of wiggum-rpc/websocket, over a ws WebSocket", "node/websocket-require.cjs"],
  ["import of wiggum-rpc/websocket, over a ws WebSocket", "node/websocket-import.mjs"],
]) {
  test(`in Node, by ${how}: two Peers call each other`, () => {
    const output = execFileSync(process.execPath, [join(app, file)], { cwd: app, encoding: "utf8", stdio: "pipe" });
    assert.deepEqual(JSON.parse(output), { sum: 5, missing: true });
  });
}

for (const [how, file] of [
  ["require", "node/references-require.cjs"],
  ["import", "node/references-import.mjs"],
]) {
  test(`in Node, by ${how} of wiggum-rpc/references: a callback passed by reference is called back, released, and both tables are empty`, () => {
    const output = execFileSync(process.execPath, [join(app, file)], { cwd: app, encoding: "utf8", stdio: "pipe" });
    assert.deepEqual(JSON.parse(output), { sum: 5, called: 5, held: [0, 0, 0, 0] });
  });
}

test("in Node, the plain flavour's reference() says where references are", () => {
  const output = execFileSync(process.execPath, ["--input-type=module", "-e", 'import { reference } from "wiggum-rpc/remote"; try { reference(() => 1); } catch (error) { console.log(error.message); }'], { cwd: app, encoding: "utf8" });
  assert.match(output, /import every entry from wiggum-rpc\/references/);
});

test("in Node, wiggum-rpc/framing: a frame cut in two decodes; import and require give one class", () => {
  const output = execFileSync(process.execPath, [join(app, "node/framing.mjs")], { cwd: app, encoding: "utf8", stdio: "pipe" });
  const body = JSON.stringify({ jsonrpc: "2.0", method: "add", params: [2, 3], id: 1 });
  assert.deepEqual(JSON.parse(output), { messages: [body], sameClass: true });
});

test("in a browser build, wiggum-rpc/framing throws on import, saying it is for Node", async () => {
  const url = pathToFileURL(join(app, "node_modules/wiggum-rpc/framing.js")).href;
  await assert.rejects(import(url), /wiggum-rpc\/framing is for Node/);
});

test("wiggum-rpc/redis: in Node, ioredis is its one import and an optional peer dependency; in a browser build it throws on import, saying it is for Node", async () => {
  const dir = join(app, "node_modules/wiggum-rpc");
  const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
  assert.match(manifest.peerDependencies?.ioredis ?? "", /^\^\d+\.0\.0$/);
  assert.deepEqual(manifest.peerDependenciesMeta?.ioredis, { optional: true });
  const code = readFileSync(join(dir, "node/redis.cjs"), "utf8");
  assert.deepEqual([...new Set([...code.matchAll(/require\("([^"]+)"\)/g)].map(([, name]) => name))].sort(), ["ioredis", "node:crypto"]);
  // A page that imports the hub loads none of it.
  assert.doesNotMatch(readFileSync(join(dir, "hub.js"), "utf8"), /ioredis|redis\.js/);
  for (const file of ["redis.js", "web/redis.js"]) {
    await assert.rejects(import(pathToFileURL(join(dir, file)).href), /wiggum-rpc\/redis is for Node/);
  }
});

test("wiggum-rpc/otel: @opentelemetry/api is its one import and an optional peer dependency; wiggum-rpc/middleware is what it adds its halves to", () => {
  const dir = join(app, "node_modules/wiggum-rpc");
  const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
  assert.equal(manifest.peerDependencies?.["@opentelemetry/api"], "^1.9.0");
  assert.deepEqual(manifest.peerDependenciesMeta?.["@opentelemetry/api"], { optional: true });
  const code = readFileSync(join(dir, "node/otel.cjs"), "utf8");
  assert.deepEqual([...new Set([...code.matchAll(/require\("([^"]+)"\)/g)].map(([, name]) => name))].sort(), ["./middleware.cjs", "@opentelemetry/api"]);
  // The root entry loads neither.
  assert.doesNotMatch(readFileSync(join(dir, "wiggum_rpc.js"), "utf8"), /opentelemetry|middleware\.js/);
});

test("the types compile under tsc's node16 resolution, from ES modules and CommonJS", () => {
  try {
    execFileSync(process.execPath, [join(root, "node_modules/typescript/bin/tsc"), "-p", join(app, "node")], { stdio: "pipe" });
  } catch (error) {
    assert.fail(`tsc: ${error.stdout}${error.stderr}`);
  }
});

// The oldest @types/node a Node 20 program installs (the package says Node 20.19 and later; this
// repository has it as types-node-20, outside @types, where TypeScript would load it beside the newest), and the newest.
for (const [types, which] of [["types-node-20", "@types/node 20.19"], ["@types/node", "the newest @types/node"]]) {
test(`the Node entries' types compile under TypeScript's own Node set-up (lib esnext, types node, no DOM), on ${which}`, () => {
  // What `tsc --init` writes, with its advice for Node ("lib": ["esnext"], "types": ["node"]), and the library's types checked too.
  const dir = join(app, `node-no-dom-${types.replace("/", "-")}`);
  mkdirSync(dir, { recursive: true });
  // Its own node_modules/@types/node, so that no other version is found for `node:` modules.
  const typeRoots = join(dir, "node_modules/@types");
  mkdirSync(typeRoots, { recursive: true });
  symlinkSync(join(root, "node_modules", types), join(typeRoots, "node"));
  writeFileSync(join(dir, "package.json"), JSON.stringify({ type: "module" }));
  writeFileSync(
    join(dir, "tsconfig.json"),
    JSON.stringify({
      compilerOptions: {
        module: "nodenext", target: "esnext", lib: ["esnext"], types: ["node"], typeRoots: [typeRoots],
        strict: true, noUncheckedIndexedAccess: true, exactOptionalPropertyTypes: true, verbatimModuleSyntax: true,
        isolatedModules: true, noUncheckedSideEffectImports: true, moduleDetection: "force", noEmit: true, skipLibCheck: false,
        noUnusedLocals: true,
      },
      // An ES module: Node's entries give it their `.d.cts` as they give `require` (the `node` condition).
      files: ["main.mts"],
    }),
  );
  const every = `import { Peer, portTransport, workerTransport, transfer, type RPCTransport } from "wiggum-rpc";
import { webSocketTransport } from "wiggum-rpc/websocket";
import { httpTransport, connectMcp } from "wiggum-rpc/http";
import { Hub, broadcastHub } from "wiggum-rpc/hub";
import { workerPool } from "wiggum-rpc/pool";
import { FrameDecoder, encodeFrame } from "wiggum-rpc/framing";
import { redisCluster } from "wiggum-rpc/redis";
import "wiggum-rpc/remote";
import "wiggum-rpc/stream";
import "wiggum-rpc/trace";
import "wiggum-rpc/contracts";
import "wiggum-rpc/introspection";
import { idempotency, retry } from "wiggum-rpc/middleware";
import { instrument, tracing } from "wiggum-rpc/otel";
import { BroadcastChannel, MessageChannel, Worker, parentPort } from "node:worker_threads";
// Node's own workers and ports, as the Node build's transports take them.
export const toWorker = new Peer(workerTransport(new Worker("./worker.js")));
export const toParent = parentPort === null ? undefined : new Peer(portTransport(parentPort));
export const onChannel = broadcastHub(new BroadcastChannel("hub"));
const { port1, port2 } = new MessageChannel();
export const peer = new Peer(portTransport(port1));
export const sum: Promise<number> = peer.request<number>("add", [1, 2], { transfer: [new ArrayBuffer(8), port2] });
export const moved = transfer({ bytes: new Uint8Array(4) }, [new ArrayBuffer(4)]);
// @ts-expect-error params are an array or an object
peer.request("add", 3);
// @ts-expect-error an object is not a Worker (Node's worker_threads Worker is one)
workerTransport({});
export const used: unknown[] = [webSocketTransport, httpTransport, connectMcp, Hub, broadcastHub, workerPool, FrameDecoder, encodeFrame];
// Middleware typed by what it adds: the handlers registered after it see \`user\`.
export const guarded = new Peer(portTransport(port2)).use<{ user: string }>((call, next) => {
  call.context.user = String(call.meta?.user);
  return next();
});
guarded.method("whoami", (params: unknown, { user, signal }) => (signal.aborted ? "" : user.toUpperCase()));
guarded.use(idempotency({ maxKeys: 10 })).intercept(retry({ attempts: 2 }));
export const traced = instrument(new Hub());
export const { interceptor, middleware } = tracing();
// @ts-expect-error a middleware is a function
peer.use("auth");
export const clustered = new Hub({ timeout: 1000, cluster: redisCluster({ url: "redis://127.0.0.1:6379", lease: 2000 }) });
export const where: string | undefined = clustered.nodeOf("client-1");
// @ts-expect-error the lease is a number of ms
redisCluster({ lease: "2s" });
export type Used = RPCTransport;
`;
  writeFileSync(join(dir, "main.mts"), every);
  try {
    execFileSync(process.execPath, [join(root, "node_modules/typescript/bin/tsc"), "-p", dir], { stdio: "pipe" });
  } catch (error) {
    assert.fail(`tsc: ${error.stdout}${error.stderr}`);
  }
});
}

test("publint --strict finds nothing to say", () => {
  const output = execFileSync(process.execPath, [join(root, "node_modules/publint/src/cli.js"), "--strict", tarball], {
    encoding: "utf8",
    stdio: "pipe",
  });
  assert.match(output, /All good!/);
});

test("are-the-types-wrong finds no problem in any entry, for node10, node16 (CJS and ESM) and bundlers", () => {
  const cli = join(root, "node_modules/@arethetypeswrong/cli/dist/index.js");
  // Into a file: its JSON is larger than a pipe takes before it exits.
  const report = join(app, "attw.json");
  try {
    execFileSync("sh", ["-c", 'exec "$0" "$1" "$2" --format json > "$3"', process.execPath, cli, tarball, report], { stdio: "pipe" });
  } catch (error) {
    // It exits non-zero when it reports a problem; the report says which.
    if (!readFileSync(report, "utf8").trim()) assert.fail(`attw: ${error.stdout}${error.stderr}`);
  }
  const { analysis, problems } = JSON.parse(readFileSync(report, "utf8"));
  assert.deepEqual(problems, {});
  const subpaths = ["contracts", "framing", "http", "hub", "introspection", "middleware", "otel", "pool", "redis", "remote", "stream", "trace", "websocket"];
  const flavour = (at) => [at, `${at}/web`, ...subpaths.flatMap((name) => [`${at}/${name}`, `${at}/web/${name}`])];
  assert.deepEqual(Object.keys(analysis.entrypoints).sort(), [
    "./esbuild", "./package.json", ...flavour("."), ...flavour("./references"),
  ].sort());
  for (const entry of Object.keys(analysis.entrypoints)) {
    assert.deepEqual(Object.keys(analysis.entrypoints[entry].resolutions).sort(), ["bundler", "node10", "node16-cjs", "node16-esm"]);
  }
});

test("without a bundler: `wiggum-rpc/web` through an import map, a page and a port in Chromium (a failed call's error a class named RPCError); init() twice, one instance; the page's compiled module handed to a worker; `wiggum-rpc/web/websocket` to a Node server", async () => {
  const wss = await serveMulOverWebSocket(app);
  // The worker instantiates the module the page posts it, and fetches no .wasm of its own.
  writeFileSync(
    join(app, "no-bundler-worker.js"),
    `import init, { Peer, selfTransport } from "/node_modules/wiggum-rpc/web/wiggum_rpc.js";
const module = await new Promise((resolve) => self.addEventListener("message", ({ data }) => resolve(data), { once: true }));
await init({ module_or_path: module });
const peer = new Peer(selfTransport());
peer.method("add", ([a, b]) => a + b);
peer.method("wasmFetched", () => performance.getEntriesByType("resource").filter(({ name }) => name.endsWith(".wasm")).length);
`,
  );
  writeFileSync(
    join(app, "no-bundler.html"),
    `<!doctype html><meta charset="utf-8"><link rel="icon" href="data:,">
<script type="importmap">{ "imports": {
  "wiggum-rpc/web": "/node_modules/wiggum-rpc/web/wiggum_rpc.js",
  "wiggum-rpc/web/websocket": "/node_modules/wiggum-rpc/web/websocket.js"
} }</script>
<script type="module">
  import init, { compiledModule, Peer, portTransport, workerTransport, ErrorCode } from "wiggum-rpc/web";
  import { webSocketTransport } from "wiggum-rpc/web/websocket";
  const before = compiledModule();
  const first = await init();
  // A second init() (another module of the page, say) finds the instance there: no second one.
  const sameInstance = (await init()) === first;
  const { port1, port2 } = new MessageChannel();
  const caller = new Peer(portTransport(port1));
  const server = new Peer(portTransport(port2));
  server.method("add", ([a, b]) => a + b);
  const sum = await caller.request("add", [2, 3]);
  const missing = await caller.request("nope").catch((error) => error.code === ErrorCode.METHOD_NOT_FOUND);
  // The minified build keeps its exported classes' names.
  const errorClass = await caller.request("nope").catch((error) => error.constructor.name);
  const worker = new Worker("/no-bundler-worker.js", { type: "module" });
  worker.postMessage(compiledModule());
  const inWorker = new Peer(workerTransport(worker));
  const module = { before: before === undefined, after: compiledModule() instanceof WebAssembly.Module,
    workerSum: await inWorker.request("add", [4, 5]), wasmFetched: await inWorker.request("wasmFetched") };
  inWorker.destroy();
  worker.terminate();
  const overSocket = new Peer(webSocketTransport(new URLSearchParams(location.search).get("ws")));
  const product = await overSocket.request("mul", [6, 7]);
  overSocket.destroy();
  window.result = { sum, missing, errorClass, sameInstance, product, module };
</script>\n`,
  );
  const server = await startServer({ mounts: [["/", app]] });
  const browser = await launchChromium();
  try {
    const page = await browser.newPage();
    const problems = [];
    page.on("pageerror", (error) => problems.push(String(error)));
    await page.goto(`${server.url}no-bundler.html?ws=${wss.url}`);
    await page.waitForFunction(() => window.result !== undefined, null, { timeout: 15000 });
    assert.deepEqual(await page.evaluate(() => window.result), {
      sum: 5, missing: true, errorClass: "RPCError", sameInstance: true, product: 42,
      module: { before: true, after: true, workerSum: 9, wasmFetched: 0 },
    });
    assert.deepEqual(problems, []);
  } finally {
    await browser.close();
    await server.close();
    wss.close();
  }
});

test("bundled with esbuild, it calls a worker in Chromium", async () => {
  const dist = join(app, "dist");
  // The package's own plugin, as an app gets it: `wiggum-rpc/esbuild`.
  const { wasmPlugin } = createRequire(join(app, "package.json"))("wiggum-rpc/esbuild");
  await build({
    entryPoints: [join(app, "src/main.ts"), join(app, "src/worker.ts")],
    bundle: true,
    format: "esm",
    target: "es2022",
    outdir: dist,
    plugins: [wasmPlugin()],
    logLevel: "warning",
  });
  cpSync(join(app, "index.html"), join(dist, "index.html"));
  const server = await startServer({ mounts: [["/", dist]] });
  const browser = await launchChromium();
  try {
    const page = await browser.newPage();
    const problems = [];
    page.on("pageerror", (error) => problems.push(String(error)));
    page.on("console", (message) => message.type() === "error" && problems.push(message.text()));
    await page.goto(server.url);
    await page.waitForFunction(() => window.result !== undefined, null, { timeout: 15000 });
    assert.deepEqual(await page.evaluate(() => window.result), {
      sum: 5,
      buildFailed: true,
      isError: true,
      reversed: [3, 2, 1],
    });
    assert.deepEqual(problems, []);
  } finally {
    await browser.close();
    await server.close();
  }
});
