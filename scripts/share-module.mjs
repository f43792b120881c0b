// Gives the builds that compile their own module (web: no bundler; nodejs)
// `compiledModule()`: the WebAssembly.Module they instantiated, so that a
// page can post it to a worker (or Node to a worker thread), which then
// instantiates it without fetching or compiling the .wasm again
// (`init({ module_or_path: module })`). A bundler instantiates the module
// itself and keeps it, so the bundler target has no such function.
//
//   node scripts/share-module.mjs <build dir>
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const [dir] = process.argv.slice(2);
const gluePath = join(dir, "wiggum_rpc.js");
const typesPath = join(dir, "wiggum_rpc.d.ts");
const glue = readFileSync(gluePath, "utf8");
// Where wasm-bindgen's glue keeps the module: a variable set by init() in
// the web target, a constant of the CommonJS module in the nodejs target.
const web = /^let wasmModule, wasmInstance, wasm;$/m.test(glue);
const node = /^const wasmModule = new WebAssembly\.Module\(wasmBytes\);$/m.test(glue);
if (!web && !node) {
  console.error(`share-module: ${gluePath} keeps no \`wasmModule\` this script knows`);
  process.exit(1);
}
const fn = "function compiledModule() {\n    return wasmModule;\n}\n";
writeFileSync(
  gluePath,
  web
    ? `${glue}\n/** The module \`init()\` compiled (undefined before it settles). */\nexport ${fn}`
    : `${glue}\n/** The module this build compiled when it was loaded. */\n${fn}exports.compiledModule = compiledModule;\n`,
);
const doc = web
  ? `The WebAssembly.Module this build compiled, or undefined before \`init()\`
 * settles. Post it to a worker (a module is cloned, not transferred) and the
 * worker's \`init({ module_or_path: module })\` instantiates it without
 * fetching or compiling the .wasm again.`
  : `The WebAssembly.Module this build compiled when it was loaded. (A Node
 * worker thread that loads the package compiles its own: \`init()\` has
 * nothing to do in Node.)`;
writeFileSync(
  typesPath,
  `${readFileSync(typesPath, "utf8")}\n/**\n * ${doc}\n */\nexport function compiledModule(): WebAssembly.Module${web ? " | undefined" : ""};\n`,
);
