// Gives a web-target build (no bundler) `compiledModule()`: the
// WebAssembly.Module its `init()` compiled, so that a page can post it to a
// worker, which then instantiates it without fetching or compiling it again
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
// wasm-bindgen's web glue keeps the module it instantiated in this variable.
if (!/^let wasmModule, wasmInstance, wasm;$/m.test(glue)) {
  console.error(`share-module: ${gluePath} does not keep the module in \`wasmModule\``);
  process.exit(1);
}
writeFileSync(
  gluePath,
  `${glue}
/** The module \`init()\` compiled (undefined before it settles). */
export function compiledModule() {
    return wasmModule;
}
`,
);
writeFileSync(
  typesPath,
  `${readFileSync(typesPath, "utf8")}
/**
 * The WebAssembly.Module this page's \`init()\` compiled, or undefined before
 * \`init()\` settles. Post it to a worker (a module is cloneable, not
 * transferred) and the worker's \`init({ module_or_path: module })\`
 * instantiates it without fetching or compiling the .wasm again.
 */
export function compiledModule(): WebAssembly.Module | undefined;
`,
);
