// Adds Node to the npm package (scripts/build.sh bundler runs it): the same
// features built for Node (wasm-bindgen's nodejs target: CommonJS that reads
// the .wasm beside it) go into `node/` of the package, and the manifest's
// `exports` sends Node there, for `require` and `import` alike, while
// bundlers keep the bundler build at the root.
//
//   node scripts/node-entry.mjs <package dir> <nodejs build dir>
//
// In the package (`"type": "module"`) the Node glue is `wiggum_rpc.cjs` with
// `wiggum_rpc.d.cts`; its snippets stay ES modules (`.js`), which Node 20.19
// and later `require` as they are.
import { cpSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const [dir, nodeBuild] = process.argv.slice(2);
if (!dir || !nodeBuild) {
  console.error("usage: node scripts/node-entry.mjs <package dir> <nodejs build dir>");
  process.exit(2);
}
const fail = (message) => {
  console.error(`node-entry: ${message}`);
  process.exit(1);
};
for (const file of ["wiggum_rpc.js", "wiggum_rpc.d.ts", "wiggum_rpc_bg.wasm", "snippets"]) {
  if (!existsSync(join(nodeBuild, file))) fail(`${nodeBuild} has no ${file}`);
}

const out = join(dir, "node");
rmSync(out, { recursive: true, force: true });
mkdirSync(out);
cpSync(join(nodeBuild, "snippets"), join(out, "snippets"), { recursive: true });
cpSync(join(nodeBuild, "wiggum_rpc_bg.wasm"), join(out, "wiggum_rpc_bg.wasm"));
const glue = readFileSync(join(nodeBuild, "wiggum_rpc.js"), "utf8");
if (!glue.includes("require(")) fail("the Node glue is not CommonJS");
writeFileSync(join(out, "wiggum_rpc.cjs"), glue.replace('/* @ts-self-types="./wiggum_rpc.d.ts" */', '/* @ts-self-types="./wiggum_rpc.d.cts" */'));
writeFileSync(join(out, "wiggum_rpc.d.cts"), readFileSync(join(nodeBuild, "wiggum_rpc.d.ts"), "utf8"));

const manifestPath = join(dir, "package.json");
const manifest = JSON.parse(readFileSync(manifestPath, "utf8"));
manifest.exports = {
  ".": {
    node: { types: "./node/wiggum_rpc.d.cts", default: "./node/wiggum_rpc.cjs" },
    types: "./wiggum_rpc.d.ts",
    default: "./wiggum_rpc.js",
  },
  "./package.json": "./package.json",
};
// require() of the ES-module snippets needs Node 20.19 or later.
manifest.engines = { node: ">=20.19" };
manifest.files = [...new Set([...(manifest.files ?? []), "node/"])];
writeFileSync(manifestPath, `${JSON.stringify(manifest, null, 2)}\n`);
console.log(`node-entry: ${out}: the Node build, and exports for node and bundlers`);
