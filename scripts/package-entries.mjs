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
//   node scripts/package-entries.mjs <package dir> <nodejs build dir> <web build dir>
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { buildSync, transformSync } from "esbuild";
import { INSTALLS, SUBPATHS, writeSubpathEntries } from "./subpath-entries.mjs";

const [dir, nodeBuild, webBuild] = process.argv.slice(2);
/** The major version of ioredis the engine is written for: the one the repository pins. */
const IOREDIS_MAJOR = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")).devDependencies.ioredis.split(".")[0];
if (!dir || !nodeBuild || !webBuild) {
  console.error("usage: node scripts/package-entries.mjs <package dir> <nodejs build dir> <web build dir>");
  process.exit(2);
}
const fail = (message) => {
  console.error(`package-entries: ${message}`);
  process.exit(1);
};
const needs = (build, files) => {
  for (const file of files) if (!existsSync(join(build, file))) fail(`${build} has no ${file}`);
};
const fresh = (name) => {
  const out = join(dir, name);
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out);
  return out;
};

needs(nodeBuild, ["wiggum_rpc.js", "wiggum_rpc.d.ts", "wiggum_rpc_bg.wasm"]);
const node = fresh("node");
cpSync(join(nodeBuild, "wiggum_rpc_bg.wasm"), join(node, "wiggum_rpc_bg.wasm"));
const glue = readFileSync(join(nodeBuild, "wiggum_rpc.js"), "utf8");
if (!glue.includes("require(")) fail("the Node glue is not CommonJS");
writeFileSync(join(node, "wiggum_rpc.cjs"), glue.replace('/* @ts-self-types="./wiggum_rpc.d.ts" */', '/* @ts-self-types="./wiggum_rpc.d.cts" */'));
writeFileSync(join(node, "wiggum_rpc.d.cts"), readFileSync(join(nodeBuild, "wiggum_rpc.d.ts"), "utf8"));

// The subpath entries for Node: CommonJS on the CommonJS glue.
await writeSubpathEntries(node, "cjs");

// The Node entries' types must check without the DOM (TypeScript's Node
// set-up: `lib: ["esnext"]`, `types: ["node"]`), yet they name what only a
// browser has. Each Node `.d.cts` declares those names for itself, from
// what the program's own types have: the DOM's when it has them (a program
// for both), else Node's transfer list, else nothing (`never`: there is no
// Worker or Window in Node to pass).
const BROWSER_NAMES = {
  Transferable: `type Transferable = typeof globalThis extends { onmessage: any; postMessage(message: any, options?: { transfer?: (infer T)[] }): void } ? T
  : typeof globalThis extends { structuredClone(value: any, options?: { transfer?: (infer T)[] }): any } ? T : object;`,
  WebAssembly: `declare namespace WebAssembly {
  type Module = typeof globalThis extends { WebAssembly: { Module: { prototype: infer T } } } ? T : object;
}`,
  ...Object.fromEntries(
    ["Window", "Worker", "SharedWorker", "ServiceWorkerContainer"].map((name) => [
      name,
      `type ${name} = typeof globalThis extends { ${name}: { prototype: infer T } } ? T : never;`,
    ]),
  ),
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
const web = fresh("web");
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

// `wiggum-rpc/esbuild`: the plugin that lets esbuild bundle the root entry's `.wasm` (Node, where esbuild runs).
const tools = join(new URL("..", import.meta.url).pathname, "js/tools");
const plugin = readFileSync(join(tools, "esbuild.js"), "utf8");
writeFileSync(join(dir, "esbuild.js"), plugin);
writeFileSync(join(dir, "esbuild.cjs"), transformSync(plugin, { format: "cjs", target: "node20" }).code);
cpSync(join(tools, "esbuild.d.ts"), join(dir, "esbuild.d.ts"));
cpSync(join(tools, "esbuild.d.ts"), join(dir, "esbuild.d.cts"));

for (const folder of [dir, join(dir, "web")]) {
  writeFileSync(join(folder, "framing.js"), browserFraming);
  writeFileSync(join(folder, "framing.d.ts"), browserFramingTypes);
  writeFileSync(join(folder, "redis.js"), browserRedis);
  writeFileSync(join(folder, "redis.d.ts"), browserRedisTypes);
}

const manifestPath = join(dir, "package.json");
const manifest = JSON.parse(readFileSync(manifestPath, "utf8"));
// Each entry: Node gets the Node build (for import and require alike),
// bundlers and browsers the build of the folder.
const entry = (browser, nodeTypes, nodeFile) => ({
  node: { types: nodeTypes, default: nodeFile },
  types: `${browser}.d.ts`,
  default: `${browser}.js`,
});
const subpaths = [...SUBPATHS, "framing", "redis"];
manifest.exports = {
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
  "./esbuild": {
    import: { types: "./esbuild.d.ts", default: "./esbuild.js" },
    require: { types: "./esbuild.d.cts", default: "./esbuild.cjs" },
  },
  "./package.json": "./package.json",
};
// The entries that add methods to the classes must not be dropped by a
// bundler as unused imports.
const installing = Object.keys(INSTALLS).flatMap((name) => [`./${name}.js`, `./web/${name}.js`]);
manifest.sideEffects = [...new Set([...(manifest.sideEffects ?? []), "./web/wiggum_rpc.js", ...installing])];
// Only a server that imports `wiggum-rpc/redis` needs ioredis.
manifest.peerDependencies = { ...manifest.peerDependencies, ioredis: `^${IOREDIS_MAJOR}.0.0` };
manifest.peerDependenciesMeta = { ...manifest.peerDependenciesMeta, ioredis: { optional: true } };
// require() of the ES-module snippets needs Node 20.19 or later.
manifest.engines = { node: ">=20.19" };
const rootFiles = subpaths.flatMap((name) => [`${name}.js`, `${name}.d.ts`]);
manifest.files = [...new Set([...(manifest.files ?? []), ...rootFiles, "esbuild.js", "esbuild.d.ts", "esbuild.cjs", "esbuild.d.cts", "node/", "web/"])];
writeFileSync(manifestPath, `${JSON.stringify(manifest, null, 2)}\n`);
console.log(`package-entries: ${dir}: node/ (require and import in Node), web/ (browsers without a bundler), subpaths ${Object.keys(manifest.exports).join(" ")}`);
