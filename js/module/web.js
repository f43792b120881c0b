// The no-bundler build (pkg-web/wiggum_rpc.js, and the package's
// `wiggum-rpc/web`): the root entry's API with `init()`, which fetches and
// instantiates the .wasm beside this file (or takes a module, bytes or a
// response), `initSync()`, and `compiledModule()`. It takes part in the
// module hand-off (postmessage.js): a worker asks its owner for the
// compiled module while it fetches the .wasm, and a page offers its module
// to the workers it talks to. A context that may not compile WebAssembly
// is told what to do about it (wasm-refused.js).

import { start } from "./abi.js";
import { bindgenStarted, imports } from "./bindgen.js";
import { holdNothing, offerModule, ownerModuleOrFetch } from "../transports/postmessage.js";
import { wasmRefused } from "./wasm-refused.js";

export * from "./package.js";

/** This build's id: a hash of its .wasm (the build stamps it). */
const BUILD = "wiggum-rpc:build";
// A worker's code runs before init() starts the module: it listens for its own messages itself.
holdNothing();

let compiled;
let instance;

function started(module, made) {
  compiled = module;
  instance = made;
  offerModule(module, BUILD);
  bindgenStarted(made.exports);
  start(made.exports);
  return made.exports;
}

// A response, compiled as it streams where the server says it is wasm.
async function instantiated(source) {
  if (typeof Response === "function" && source instanceof Response) {
    if (typeof WebAssembly.instantiateStreaming === "function") {
      try {
        return await WebAssembly.instantiateStreaming(source.clone(), imports);
      } catch (error) {
        if (source.headers.get("Content-Type") === "application/wasm") throw error;
        console.warn("`WebAssembly.instantiateStreaming` failed because the server does not serve the .wasm as `application/wasm`; falling back to `WebAssembly.instantiate`:", error);
      }
    }
    source = await source.arrayBuffer();
  }
  const made = await WebAssembly.instantiate(source, imports);
  return made instanceof WebAssembly.Instance ? { instance: made, module: source } : made;
}

async function load(input) {
  if (instance !== undefined) return instance.exports;
  let source = input;
  if (source !== undefined && Object.getPrototypeOf(source) === Object.prototype) ({ module_or_path: source } = source);
  if (source === undefined) source = new URL("wiggum_rpc_bg.wasm", import.meta.url);
  if (typeof source === "string" || (typeof Request === "function" && source instanceof Request) || source instanceof URL) {
    source = ownerModuleOrFetch(source, BUILD);
  }
  const { instance: made, module } = await instantiated(await source);
  return instance?.exports ?? started(module, made);
}

/** Instantiates the module (fetched beside this file unless given): its exports. */
export default async function init(input) {
  try {
    return await load(input);
  } catch (error) {
    throw wasmRefused(error) ?? error;
  }
}

/** Instantiates the module from a compiled module or its bytes, synchronously. */
export function initSync(input) {
  if (instance !== undefined) return instance.exports;
  let source = input;
  if (source !== undefined && Object.getPrototypeOf(source) === Object.prototype) ({ module: source } = source);
  try {
    const module = source instanceof WebAssembly.Module ? source : new WebAssembly.Module(source);
    return started(module, new WebAssembly.Instance(module, imports));
  } catch (error) {
    throw wasmRefused(error) ?? error;
  }
}

/** The module `init()` compiled (undefined before it settles). */
export function compiledModule() {
  return compiled;
}
