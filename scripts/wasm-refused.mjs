// Makes a build that cannot compile its module say why (js/module/wasm-refused.js):
//
//   node scripts/wasm-refused.mjs web <dir>       init() and initSync() reject with the reason
//   node scripts/wasm-refused.mjs bundler <dir>   the root entry asks first, before it imports the .wasm
//
// Web: run before slim-package.mjs (which bundles the file into the glue).
// Bundler: run after it; the check goes in `snippets/`, which the manifest
// lists as having side effects, so no bundler drops its import.
import { copyFileSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const [target, dir] = process.argv.slice(2);
const source = new URL("../js/module/wasm-refused.js", import.meta.url);
const gluePath = join(dir, "wiggum_rpc.js");
const glue = readFileSync(gluePath, "utf8");
const fail = (message) => {
  console.error(`wasm-refused: ${gluePath}: ${message}`);
  process.exit(1);
};

if (target === "web") {
  const [snippet] = readdirSync(join(dir, "snippets"));
  copyFileSync(source, join(dir, "snippets", snippet, "js/module/wasm-refused.js"));
  const exported = /^export \{ initSync, __wbg_init as default \};$/m;
  if (!exported.test(glue)) fail("no `export { initSync, __wbg_init as default };` to wrap");
  const wrapped = glue.replace(exported, `import { wasmRefused } from './snippets/${snippet}/js/module/wasm-refused.js';

// A context that may not compile WebAssembly (a Content-Security-Policy
// without 'wasm-unsafe-eval') is told so, instead of the browser's CompileError.
async function initOrRefused(module_or_path) {
    try {
        return await __wbg_init(module_or_path);
    } catch (error) {
        throw wasmRefused(error) ?? error;
    }
}

function initSyncOrRefused(module) {
    try {
        return initSync(module);
    } catch (error) {
        throw wasmRefused(error) ?? error;
    }
}

export { initSyncOrRefused as initSync, initOrRefused as default };`);
  writeFileSync(gluePath, wrapped);
} else if (target === "bundler") {
  copyFileSync(source, join(dir, "snippets/wasm-refused.js"));
  writeFileSync(
    join(dir, "snippets/wasm-allowed.js"),
    `// Asked before the root entry imports its .wasm: a bundler's own load of a\n// refused module fails with a CompileError that says nothing of what to do.\nimport { wasmRefused } from "./wasm-refused.js";\n\nconst refused = wasmRefused();\nif (refused !== undefined) throw refused;\n`,
  );
  if (!/^import\*as \w+ from"\.\/wiggum_rpc_bg\.wasm";/.test(glue) && !glue.startsWith('import * as wasm from "./wiggum_rpc_bg.wasm";')) {
    fail("the entry does not begin by importing the .wasm");
  }
  writeFileSync(gluePath, `import"./snippets/wasm-allowed.js";${glue}`);
} else {
  fail("usage: node scripts/wasm-refused.mjs web|bundler <dir>");
}
