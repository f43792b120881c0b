// The Node build (pkg/node/wiggum_rpc.cjs, CommonJS): the root entry's API
// on the .wasm beside this file, compiled and instantiated as it loads.

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { start } from "./abi.js";
import { bindgenStarted, imports } from "./bindgen.js";
import { parentPort } from "node:worker_threads";
import { moduleStarted, useParentPort } from "../transports/postmessage.js";

export * from "./package.js";

const compiled = new WebAssembly.Module(readFileSync(join(__dirname, "wiggum_rpc_bg.wasm")));
const { exports } = new WebAssembly.Instance(compiled, imports);
bindgenStarted(exports);
start(exports);
moduleStarted();
useParentPort(parentPort);

/** The module this build compiled when it was loaded. */
export function compiledModule() {
  return compiled;
}

export { FrameDecoder, encodeFrame, streamTransport } from "./framing.js";
