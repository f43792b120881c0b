/**
 * The esbuild plugin that loads the package's `.wasm` (esbuild has no
 * WebAssembly ES-module support of its own): `esbuild.build({ plugins: [wasmPlugin()] })`.
 *
 * @module wiggum-rpc/esbuild
 */

/** An esbuild plugin (the shape of esbuild's `Plugin`, without depending on esbuild's types). */
export interface EsbuildPlugin {
  name: string;
  setup(build: any): void | Promise<void>;
}

/** Instantiates `wiggum_rpc_bg.wasm` with its imports for a bundle, the bytes inlined. */
export function wasmPlugin(): EsbuildPlugin;
