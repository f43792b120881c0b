// Why the module could not be loaded, when the reason is that this context
// may not compile WebAssembly at all: a Content-Security-Policy whose
// script-src lacks 'wasm-unsafe-eval' (the usual strict policy, and an
// extension page's default) makes the browser refuse every compile with a
// CompileError that names 'unsafe-eval' and says nothing of what to do.
// Linked into init() (the no-bundler build) and run before the .wasm is
// imported (the bundler build: snippets/wasm-allowed.js).

// The smallest valid module: its compile fails only where compiling is refused.
const EMPTY_MODULE = Uint8Array.of(0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00);

/** An Error saying what to add and where, if this context refuses WebAssembly; else undefined. */
export function wasmRefused(cause) {
  try {
    new WebAssembly.Module(EMPTY_MODULE);
    return undefined;
  } catch {
    return new Error(
      "wiggum-rpc cannot load: this context may not compile WebAssembly. If a Content-Security-Policy applies, " +
        "add 'wasm-unsafe-eval' to its script-src (or default-src): in the page's policy; for a worker, in the policy " +
        "its script is served with; for a frame (sandboxed or not), in the policy of its document (a srcdoc or blob: " +
        "frame or worker has its creator's); for an extension page, in the manifest's content_security_policy.",
      cause === undefined ? undefined : { cause },
    );
  }
}
