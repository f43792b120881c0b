// Gives the builds that compile their own module (web: no bundler; nodejs)
// `compiledModule()`: the WebAssembly.Module they instantiated, so that a
// page can post it to a worker (or Node to a worker thread), which then
// instantiates it without fetching or compiling the .wasm again
// (`init({ module_or_path: module })`). A bundler instantiates the module
// itself and keeps it, so the bundler target has no such function.
//
//   node scripts/share-module.mjs <build dir>
//   node scripts/share-module.mjs --stamp <build dir>   (after slim-package.mjs)
import { createHash } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const PLACEHOLDER = "wiggum-rpc:build";
const args = process.argv.slice(2);
const stamp = args[0] === "--stamp";
const [dir] = stamp ? args.slice(1) : args;
const gluePath = join(dir, "wiggum_rpc.js");
const typesPath = join(dir, "wiggum_rpc.d.ts");
const glue = readFileSync(gluePath, "utf8");

if (stamp) {
  const build = createHash("sha256").update(readFileSync(join(dir, "wiggum_rpc_bg.wasm"))).digest("base64url").slice(0, 16);
  const quoted = new RegExp(`(["'\`])${PLACEHOLDER}\\1`, "g");
  const count = glue.match(quoted)?.length ?? 0;
  if (count === 0) {
    console.error(`share-module: ${gluePath} has no build id to stamp`);
    process.exit(1);
  }
  writeFileSync(gluePath, glue.replace(quoted, (_, quote) => `${quote}${build}${quote}`));
  process.exit(0);
}
// Where wasm-bindgen's glue keeps the module: a variable set by init() in
// the web target, a constant of the CommonJS module in the nodejs target.
const web = /^let wasmModule, wasmInstance, wasm;$/m.test(glue);
const node = /^const wasmModule = new WebAssembly\.Module\(wasmBytes\);$/m.test(glue);
if (!web && !node) {
  console.error(`share-module: ${gluePath} keeps no \`wasmModule\` this script knows`);
  process.exit(1);
}
const fn = "function compiledModule() {\n    return wasmModule;\n}\n";
// The web target's init() also takes part in the module hand-off (see
// js/transports/postmessage.js): a worker asks its owner for the module while
// it fetches the .wasm, and a page offers its module to the workers it talks
// to. The build's id is stamped in last (`--stamp`), once the .wasm is final.
// And a worker's own early messages are not held for it (postmessage.js,
// `holdNothing`): its code runs, and listens, before init() starts the module.
const handOff = [
  [/^(import \{[^}]*?) ?(\} from '(\.\/snippets\/[^']+\/js\/transports\/postmessage\.js)';)$/m, "$1, offerModule, ownerModuleOrFetch, holdNothing $2"],
  [/^( *)module_or_path = fetch\(module_or_path\);$/m, "$1module_or_path = ownerModuleOrFetch(module_or_path, BUILD);"],
  [/^( *)wasmModule = module;$/m, "$1wasmModule = module;\n$1offerModule(module, BUILD);"],
  [/^let wasmModule, wasmInstance, wasm;$/m, `$&\n/** This build's id: a hash of its .wasm. */\nconst BUILD = "${PLACEHOLDER}";\n// A worker's code runs before init() starts the module: it listens for its own messages itself.\nholdNothing();`],
];
let shared = glue;
if (web) {
  for (const [pattern, replacement] of handOff) {
    if (!pattern.test(shared)) {
      console.error(`share-module: ${gluePath} has nothing matching ${pattern}`);
      process.exit(1);
    }
    shared = shared.replace(pattern, replacement);
  }
}
writeFileSync(
  gluePath,
  web
    ? `${shared}\n/** The module \`init()\` compiled (undefined before it settles). */\nexport ${fn}`
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
