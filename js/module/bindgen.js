// wasm-bindgen's glue for the module's imports, as every build links it.
// `wasm-pack build` writes it (scripts/build.sh); scripts/glue.mjs resolves
// `./wiggum_rpc_generated.js` to that file, and `./wiggum_rpc_glue.js` (the
// module the Rust imports name) to abi.js, whose functions its shims call.
// The imports object itself is written by glue.mjs too (`./imports.js`):
// each import under the short name the .wasm's import section gives it.

import { __wbg_set_wasm } from "./wiggum_rpc_generated.js";

export { imports } from "./imports.js";

/** The module is instantiated: wasm-bindgen's glue gets its exports, and its start function runs (the externref table). */
export function bindgenStarted(exports) {
  __wbg_set_wasm(exports);
  exports.__wbindgen_start();
}
