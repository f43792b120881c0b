// Adds the other builds to the npm package (scripts/build.sh bundler runs it):
//
// - `node/`: the same features built for Node (wasm-bindgen's nodejs target:
//   CommonJS that reads the .wasm beside it), where the manifest's `exports`
//   send Node, for `require` and `import` alike. In the package
//   (`"type": "module"`) its glue is `wiggum_rpc.cjs` with
//   `wiggum_rpc.d.cts`; its snippets stay ES modules (`.js`), which Node
//   20.19 and later `require` as they are.
// - `web/`: the same features for a browser without a bundler
//   (`import init, { Peer } from "wiggum-rpc/web"` through an import map,
//   then `await init()`), as the `./web` export. In Node the same name gives
//   the Node build with an `init()` that has nothing left to do (the Node
//   build is ready once loaded), so code written for it runs there too.
//
// Bundlers keep the bundler build at the package's root.
//
//   node scripts/package-entries.mjs <package dir> <nodejs build dir> <web build dir>
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const [dir, nodeBuild, webBuild] = process.argv.slice(2);
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

needs(nodeBuild, ["wiggum_rpc.js", "wiggum_rpc.d.ts", "wiggum_rpc_bg.wasm", "snippets"]);
const node = fresh("node");
cpSync(join(nodeBuild, "snippets"), join(node, "snippets"), { recursive: true });
cpSync(join(nodeBuild, "wiggum_rpc_bg.wasm"), join(node, "wiggum_rpc_bg.wasm"));
const glue = readFileSync(join(nodeBuild, "wiggum_rpc.js"), "utf8");
if (!glue.includes("require(")) fail("the Node glue is not CommonJS");
writeFileSync(join(node, "wiggum_rpc.cjs"), glue.replace('/* @ts-self-types="./wiggum_rpc.d.ts" */', '/* @ts-self-types="./wiggum_rpc.d.cts" */'));
writeFileSync(join(node, "wiggum_rpc.d.cts"), readFileSync(join(nodeBuild, "wiggum_rpc.d.ts"), "utf8"));

needs(webBuild, ["wiggum_rpc.js", "wiggum_rpc.d.ts", "wiggum_rpc_bg.wasm", "snippets"]);
const web = fresh("web");
for (const file of ["wiggum_rpc.js", "wiggum_rpc.js.map", "wiggum_rpc.d.ts", "wiggum_rpc_bg.wasm", "snippets"]) {
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

const manifestPath = join(dir, "package.json");
const manifest = JSON.parse(readFileSync(manifestPath, "utf8"));
manifest.exports = {
  ".": {
    node: { types: "./node/wiggum_rpc.d.cts", default: "./node/wiggum_rpc.cjs" },
    types: "./wiggum_rpc.d.ts",
    default: "./wiggum_rpc.js",
  },
  "./web": {
    node: {
      import: { types: "./web/node.d.mts", default: "./web/node.mjs" },
      require: { types: "./web/node.d.cts", default: "./web/node.cjs" },
    },
    types: "./web/wiggum_rpc.d.ts",
    default: "./web/wiggum_rpc.js",
  },
  "./package.json": "./package.json",
};
// require() of the ES-module snippets needs Node 20.19 or later.
manifest.engines = { node: ">=20.19" };
manifest.files = [...new Set([...(manifest.files ?? []), "node/", "web/"])];
writeFileSync(manifestPath, `${JSON.stringify(manifest, null, 2)}\n`);
console.log(`package-entries: ${dir}: node/ (require and import in Node), web/ (browsers without a bundler)`);
