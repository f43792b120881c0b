// Adds the other builds and the subpath entries to the npm package
// (scripts/build.sh bundler runs it):
//
// - `node/`: the same module built for Node, with Content-Length framing (CommonJS that reads the
//   .wasm beside it), where the manifest's `exports`
//   send Node, for `require` and `import` alike. In the package
//   (`"type": "module"`) its glue is `wiggum_rpc.cjs` with
//   `wiggum_rpc.d.cts`; its snippets stay ES modules (`.js`), which Node
//   20.19 and later `require` as they are.
// - `web/`: the same module for a browser without a bundler
//   (`import init, { Peer } from "wiggum-rpc/web"` through an import map,
//   then `await init()`), as the `./web` export. In Node the same name gives
//   the Node build with an `init()` that has nothing left to do (the Node
//   build is ready once loaded), so code written for it runs there too.
//
// Bundlers keep the bundler build at the package's root.
//
// `references/`: the whole package again (bundler build, `node/`, `web/`,
// every subpath) on a module built with the Cargo feature `references`, as
// `wiggum-rpc/references`, `wiggum-rpc/references/remote`, … Functions and
// objects by reference cost that module about 7 KB gzip, which a page that
// never passes one should not pay: it chooses them by importing from there.
//
// Subpath entries, each in the three builds, each importing its build's glue:
// - `wiggum-rpc/websocket`, `wiggum-rpc/remote`, `wiggum-rpc/stream`
//   (subpath-entries.mjs);
// - `wiggum-rpc/framing`, Node only: `FrameDecoder`, `encodeFrame`,
//   `streamTransport`, for framed JSON-RPC over a child process's stdio. In
//   a browser there is no stdio: importing it there throws, saying so, and
//   its types there export nothing.
// - `wiggum-rpc/esbuild`, for Node where esbuild runs: the plugin that
//   bundles the root entry's `.wasm` (js/tools/esbuild.js).
// - `wiggum-rpc/redis`, Node only: `redisCluster`, the engine of a hub
//   across processes (js/entries/redis.js). It imports `ioredis`, which
//   stays an import (the package's optional peer dependency: only a server
//   that imports this entry needs it); a page that imports `wiggum-rpc/hub`
//   loads none of it. Outside Node, importing it throws, saying so.
//
//   node scripts/package-entries.mjs <package dir> <nodejs build dir> <web build dir> \
//     <references bundler build dir> <references nodejs build dir> <references web build dir>
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { buildSync, transformSync } from "esbuild";
import { INSTALLS, REFERENCE_SOURCES, SOURCES, SUBPATHS, writeSubpathEntries } from "./subpath-entries.mjs";

const [dir, nodeBuild, webBuild, referencesBuild, referencesNodeBuild, referencesWebBuild] = process.argv.slice(2);
/** The major version of ioredis the engine is written for: the one the repository pins. */
const IOREDIS_MAJOR = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")).devDependencies.ioredis.split(".")[0];
if (!dir || !nodeBuild || !webBuild || !referencesBuild || !referencesNodeBuild || !referencesWebBuild) {
  console.error("usage: node scripts/package-entries.mjs <package dir> <nodejs build dir> <web build dir> <the same three with references>");
  process.exit(2);
}
const fail = (message) => {
  console.error(`package-entries: ${message}`);
  process.exit(1);
};
const needs = (build, files) => {
  for (const file of files) if (!existsSync(join(build, file))) fail(`${build} has no ${file}`);
};
const fresh = (dir, name) => {
  const out = join(dir, name);
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out);
  return out;
};

/**
 * Lays out one flavour of the package in `dir` (the bundler build already
 * there): its Node build in `node/`, its no-bundler build in `web/`, the
 * Node-only entries; returns its `exports`, relative to `dir`.
 */
async function layOut(dir, nodeBuild, webBuild, sources) {
  needs(nodeBuild, ["wiggum_rpc.js", "wiggum_rpc.d.ts", "wiggum_rpc_bg.wasm"]);
  const node = fresh(dir, "node");
  cpSync(join(nodeBuild, "wiggum_rpc_bg.wasm"), join(node, "wiggum_rpc_bg.wasm"));
  const glue = readFileSync(join(nodeBuild, "wiggum_rpc.js"), "utf8");
  if (!glue.includes("require(")) fail("the Node glue is not CommonJS");
  writeFileSync(join(node, "wiggum_rpc.cjs"), glue.replace('/* @ts-self-types="./wiggum_rpc.d.ts" */', '/* @ts-self-types="./wiggum_rpc.d.cts" */'));
  writeFileSync(join(node, "wiggum_rpc.d.cts"), readFileSync(join(nodeBuild, "wiggum_rpc.d.ts"), "utf8"));

  // The subpath entries for Node: CommonJS on the CommonJS glue.
  await writeSubpathEntries(node, "cjs", sources);

  // The Node entries' types must check without the DOM (TypeScript's Node
  // set-up: `lib: ["esnext"]`, `types: ["node"]`), yet they name what only a
  // browser has. Each Node `.d.cts` declares those names for itself, from
  // what the program's own types have: the DOM's when it has them (a program
  // for both), else Node's transfer list, else nothing (`never`: there is no
  // Window in Node to pass), and Node's own Worker beside the DOM's.
  const BROWSER_NAMES = {
    Transferable: `type Transferable = typeof globalThis extends { onmessage: any; postMessage(message: any, options?: { transfer?: (infer T)[] }): void } ? T
    : typeof globalThis extends { structuredClone(value: any, options?: { transfer?: (infer T)[] }): any } ? T : object;`,
    WebAssembly: `declare namespace WebAssembly {
    type Module = typeof globalThis extends { WebAssembly: { Module: { prototype: infer T } } } ? T : object;
  }`,
    ...Object.fromEntries(
      ["Window", "SharedWorker", "ServiceWorkerContainer"].map((name) => [
        name,
        `type ${name} = typeof globalThis extends { ${name}: { prototype: infer T } } ? T : never;`,
      ]),
    ),
    // What Node has of its own (worker_threads), which the transports take
    // too, by its shape (a program need not have Node's types to read
    // these); the DOM's as well in a program with both.
    Worker: `type Worker = (typeof globalThis extends { Worker: { prototype: infer T } } ? T : never)
    | { postMessage(value: any, transferList?: readonly any[]): void; on(event: "message", listener: (value: any) => void): unknown; terminate(): unknown };`,
    // Global in Node's types from 22 on; before, by their shape (a worker_threads port, `parentPort`, a BroadcastChannel fit).
    MessagePort: `type MessagePort = typeof globalThis extends { MessagePort: { prototype: infer T } } ? T
    : { postMessage(value: any, transferList?: readonly any[]): void; start(): void; close(): void };`,
    BroadcastChannel: `type BroadcastChannel = typeof globalThis extends { BroadcastChannel: { prototype: infer T } } ? T
    : { readonly name: string; postMessage(message: unknown): void; close(): void };`,
  };
  const code = (types) => types.replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, "");
  for (const file of readdirSync(node).filter((name) => name.endsWith(".d.cts"))) {
    const path = join(node, file);
    const types = readFileSync(path, "utf8");
    const used = Object.keys(BROWSER_NAMES).filter((name) => new RegExp(`\\b${name}\\b`).test(code(types)));
    if (!used.length) continue;
    const local = used.map((name) => BROWSER_NAMES[name]).join("\n");
    writeFileSync(path, `${types}\n// Names only a browser has, for a program without the DOM's types (with them, the DOM's own).\n${local}\nexport {};\n`);
  }
  const framingExports = ["FrameDecoder", "encodeFrame", "streamTransport"];
  for (const name of framingExports) if (!new RegExp(`\\b${name}:`).test(glue)) fail(`the Node glue has no ${name}`);
  writeFileSync(
    join(node, "framing.cjs"),
    `// \`wiggum-rpc/framing\`: Content-Length framing of JSON-RPC over a child process's stdio.\nconst { ${framingExports.join(", ")} } = require("./wiggum_rpc.cjs");\nmodule.exports = { ${framingExports.join(", ")} };\n`,
  );
  const framingDoc = "/**\n * Node only: the Content-Length framing of LSP and `duet-rpc` over a child process's stdio.\n *\n * @module wiggum-rpc/framing\n */\n";
  writeFileSync(join(node, "framing.d.cts"), `${framingDoc}export { ${framingExports.join(", ")} } from "./wiggum_rpc.cjs";\n`);
  // `wiggum-rpc/redis`: the engine as CommonJS for Node, ioredis left an import (require).
  const redisSource = join(new URL("..", import.meta.url).pathname, "js/entries/redis.js");
  const redisCode = buildSync({
    entryPoints: [redisSource],
    bundle: true,
    write: false,
    format: "cjs",
    platform: "node",
    target: "node20",
    external: ["ioredis"],
    logLevel: "silent",
  }).outputFiles[0].text;
  if (/from\s*"\.\//.test(redisCode) || /require\("\.\//.test(redisCode)) fail("redis.js imports a file of its own: it is meant to stand alone");
  writeFileSync(join(node, "redis.cjs"), redisCode);
  const redisTypes = readFileSync(redisSource.replace(/\.js$/, ".d.ts"), "utf8");
  writeFileSync(join(node, "redis.d.cts"), redisTypes.replaceAll('"./wiggum_rpc.js"', '"./wiggum_rpc.cjs"').replaceAll('"./hub.js"', '"./hub.cjs"'));
  const browserRedis = `// \`wiggum-rpc/redis\` outside Node: a hub across processes needs a Redis connection.\nthrow new Error("wiggum-rpc/redis is for Node (a hub across server processes on Redis); import wiggum-rpc/hub in a page");\n`;
  const browserRedisTypes = `// \`wiggum-rpc/redis\` is for Node: outside Node it exports nothing.\nexport {};\n`;

  const browserFraming = `// \`wiggum-rpc/framing\` outside Node: there is no stdio to frame here.\nthrow new Error("wiggum-rpc/framing is for Node (framed JSON-RPC over a child process's stdio); browsers have no stdio");\n`;
  const browserFramingTypes = `// \`wiggum-rpc/framing\` is for Node: outside Node it exports nothing.\nexport {};\n`;

  const entryFiles = SUBPATHS.flatMap((name) => [`${name}.js`, `${name}.js.map`, `${name}.d.ts`]);
  needs(webBuild, ["wiggum_rpc.js", "wiggum_rpc.d.ts", "wiggum_rpc_bg.wasm", ...entryFiles]);
  const web = fresh(dir, "web");
  for (const file of ["wiggum_rpc.js", "wiggum_rpc.js.map", "wiggum_rpc.d.ts", "wiggum_rpc_bg.wasm", ...entryFiles]) {
    if (existsSync(join(webBuild, file))) cpSync(join(webBuild, file), join(web, file), { recursive: true });
  }

  // `wiggum-rpc/web` in Node, for import and require, with types for each.
  const nodeInit = `// \`wiggum-rpc/web\` in Node: the Node build, ready once loaded; init() has nothing left to do.`;
  writeFileSync(
    join(web, "node.mjs"),
    `${nodeInit}\nimport lib from "../node/wiggum_rpc.cjs";\nexport * from "../node/wiggum_rpc.cjs";\nexport default async function init() {\n  return lib;\n}\nexport function initSync() {\n  return lib;\n}\n`,
  );
  writeFileSync(
    join(web, "node.cjs"),
    [
      nodeInit,
      'Object.defineProperty(exports, "__esModule", { value: true });',
      'const lib = require("../node/wiggum_rpc.cjs");',
      "Object.assign(exports, lib);",
      "exports.default = async function init() {\n  return lib;\n};",
      "exports.initSync = function initSync() {\n  return lib;\n};",
      "",
    ].join("\n"),
  );
  const nodeInitTypes = (from) =>
    `export * from "${from}";\n/** Nothing to do in Node: the module is ready once loaded. */\nexport default function init(input?: unknown): Promise<unknown>;\nexport function initSync(input?: unknown): unknown;\n`;
  writeFileSync(join(web, "node.d.mts"), nodeInitTypes("../node/wiggum_rpc.cjs"));
  writeFileSync(join(web, "node.d.cts"), nodeInitTypes("../node/wiggum_rpc.cjs"));

  for (const folder of [dir, join(dir, "web")]) {
    writeFileSync(join(folder, "framing.js"), browserFraming);
    writeFileSync(join(folder, "framing.d.ts"), browserFramingTypes);
    writeFileSync(join(folder, "redis.js"), browserRedis);
    writeFileSync(join(folder, "redis.d.ts"), browserRedisTypes);
  }

  // Each entry: Node gets the Node build (for import and require alike),
  // bundlers and browsers the build of the folder.
  const entry = (browser, nodeTypes, nodeFile) => ({
    node: { types: nodeTypes, default: nodeFile },
    types: `${browser}.d.ts`,
    default: `${browser}.js`,
  });
  return {
    ".": entry("./wiggum_rpc", "./node/wiggum_rpc.d.cts", "./node/wiggum_rpc.cjs"),
    ...Object.fromEntries(subpaths.map((name) => [`./${name}`, entry(`./${name}`, `./node/${name}.d.cts`, `./node/${name}.cjs`)])),
    "./web": {
      node: {
        import: { types: "./web/node.d.mts", default: "./web/node.mjs" },
        require: { types: "./web/node.d.cts", default: "./web/node.cjs" },
      },
      types: "./web/wiggum_rpc.d.ts",
      default: "./web/wiggum_rpc.js",
    },
    ...Object.fromEntries(subpaths.map((name) => [`./web/${name}`, entry(`./web/${name}`, `./node/${name}.d.cts`, `./node/${name}.cjs`)])),
  };
}

// `wiggum-rpc/esbuild`: the plugin that lets esbuild bundle the root entry's `.wasm` (Node, where esbuild runs).
const tools = join(new URL("..", import.meta.url).pathname, "js/tools");
const plugin = readFileSync(join(tools, "esbuild.js"), "utf8");
writeFileSync(join(dir, "esbuild.js"), plugin);
writeFileSync(join(dir, "esbuild.cjs"), transformSync(plugin, { format: "cjs", target: "node20" }).code);
cpSync(join(tools, "esbuild.d.ts"), join(dir, "esbuild.d.ts"));
cpSync(join(tools, "esbuild.d.ts"), join(dir, "esbuild.d.cts"));

const subpaths = [...SUBPATHS, "framing", "redis"];
const exports = await layOut(dir, nodeBuild, webBuild, SOURCES);

// `wiggum-rpc/references`: the same package on a module that takes
// references (Cargo feature `references`), laid out alike under references/.
const references = fresh(dir, "references");
for (const file of readdirSync(referencesBuild)) {
  if (file === "package.json" || file.endsWith(".md") || file.startsWith("LICENSE")) continue;
  cpSync(join(referencesBuild, file), join(references, file), { recursive: true });
}
const referencesExports = await layOut(references, referencesNodeBuild, referencesWebBuild, REFERENCE_SOURCES);
/** An export's conditions with its paths under `prefix/`. */
const under = (prefix, paths) => JSON.parse(JSON.stringify(paths).replaceAll('"./', `"./${prefix}/`));

const manifestPath = join(dir, "package.json");
const manifest = JSON.parse(readFileSync(manifestPath, "utf8"));
manifest.exports = {
  ...exports,
  "./esbuild": {
    import: { types: "./esbuild.d.ts", default: "./esbuild.js" },
    require: { types: "./esbuild.d.cts", default: "./esbuild.cjs" },
  },
  ...Object.fromEntries(Object.entries(referencesExports).map(([name, paths]) => [name === "." ? "./references" : name.replace("./", "./references/"), under("references", paths)])),
  "./package.json": "./package.json",
};
// The entries that add methods to the classes must not be dropped by a
// bundler as unused imports.
const installing = ["", "references/"].flatMap((flavour) =>
  [`./${flavour}wiggum_rpc.js`, `./${flavour}web/wiggum_rpc.js`, `./${flavour}snippets/*`, ...Object.keys(INSTALLS).flatMap((name) => [`./${flavour}${name}.js`, `./${flavour}web/${name}.js`])]);
manifest.sideEffects = [...new Set([...(manifest.sideEffects ?? []), ...installing])];
// Only a server that imports `wiggum-rpc/redis` needs ioredis.
manifest.peerDependencies = { ...manifest.peerDependencies, ioredis: `^${IOREDIS_MAJOR}.0.0` };
manifest.peerDependenciesMeta = { ...manifest.peerDependenciesMeta, ioredis: { optional: true } };
// `wiggum-rpc/otel` speaks OpenTelemetry's API, which the app's SDK provides.
manifest.peerDependencies["@opentelemetry/api"] = "^1.9.0";
manifest.peerDependenciesMeta["@opentelemetry/api"] = { optional: true };
// require() of the ES-module snippets needs Node 20.19 or later.
manifest.engines = { node: ">=20.19" };
const rootFiles = subpaths.flatMap((name) => [`${name}.js`, `${name}.d.ts`]);
manifest.files = [...new Set([...(manifest.files ?? []), ...rootFiles, "esbuild.js", "esbuild.d.ts", "esbuild.cjs", "esbuild.d.cts", "node/", "web/", "references/"])];
writeFileSync(manifestPath, `${JSON.stringify(manifest, null, 2)}\n`);
console.log(`package-entries: ${dir}: node/ (require and import in Node), web/ (browsers without a bundler), references/ (the same on a module that takes references), subpaths ${Object.keys(manifest.exports).join(" ")}`);
