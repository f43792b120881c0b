// The bundler build's glue (pkg/wiggum_rpc_bg.js): the root entry's API,
// the functions the .wasm imports from this module by name (a bundler
// links them: the .wasm is a WebAssembly ES module), and `start`, which
// the root entry calls with the module's exports once it is instantiated.

import { start as started } from "./abi.js";
import { moduleStarted } from "../transports/postmessage.js";

export * from "./package.js";
export {
  now, kind, member, text, num, boolean, count, elements, is_v2, object_of, empty_array, new_number, new_string, new_object,
  new_null, with_member, set_true, same, describe, encodable,
} from "./abi.js";

/** The module is instantiated: the classes get its exports; a bundled worker's held messages go out again. */
export function start(exports) {
  started(exports);
  moduleStarted();
}
