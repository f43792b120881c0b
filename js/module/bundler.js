// The bundler build's glue (pkg/wiggum_rpc_bg.js): the root entry's API,
// and `start`, which the root entry calls with the module's exports once it
// is instantiated. The build adds the functions the .wasm imports from this
// module (wasm-bindgen's shims, and the imports it links straight to
// abi.js), each exported under its short name (scripts/glue.mjs): a bundler
// links them, the .wasm being a WebAssembly ES module.

import { start as started } from "./abi.js";
import { bindgenStarted } from "./bindgen.js";
import { moduleStarted } from "../transports/postmessage.js";

export * from "./package.js";

/** The module is instantiated: the classes get its exports; a bundled worker's held messages go out again. */
export function start(exports) {
  bindgenStarted(exports);
  started(exports);
  moduleStarted();
}
