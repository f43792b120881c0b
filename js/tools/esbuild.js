// `wiggum-rpc/esbuild`: the esbuild plugin that loads the package's `.wasm`.
// The root entry imports its module as a WebAssembly ES module, which
// webpack and Vite understand and esbuild does not; this plugin gives esbuild
// the same: it instantiates the module with the JS modules it imports, and
// exports its exports. The bytes are inlined in the bundle (no file to copy,
// no URL to get right, in a page or a worker alike).
import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";

const MODULE = "wiggum-rpc-wasm";
const BYTES = "wiggum-rpc-wasm-bytes";

/** The esbuild plugin: `esbuild.build({ plugins: [wasmPlugin()], ... })`. */
export function wasmPlugin() {
  return {
    name: "wiggum-rpc-wasm",
    setup(build) {
      // Only the package's own module: other `.wasm` imports are left to their owners.
      build.onResolve({ filter: /wiggum_rpc_bg\.wasm$/ }, (args) =>
        args.namespace === MODULE
          ? { path: args.path, namespace: BYTES }
          : { path: resolve(args.resolveDir, args.path), namespace: MODULE },
      );
      build.onLoad({ filter: /.*/, namespace: MODULE }, (args) => {
        const module = new WebAssembly.Module(readFileSync(args.path));
        const sources = [...new Set(WebAssembly.Module.imports(module).map((i) => i.module))];
        const names = WebAssembly.Module.exports(module).map((e) => e.name);
        const contents = [
          ...sources.map((source, i) => `import * as m${i} from ${JSON.stringify(source)};`),
          `import bytes from ${JSON.stringify(args.path)};`,
          `const imports = {${sources.map((source, i) => `${JSON.stringify(source)}: m${i}`).join(", ")}};`,
          "const { instance } = await WebAssembly.instantiate(bytes, imports);",
          ...names.map((name) => `export const ${name} = instance.exports.${name};`),
        ].join("\n");
        return { contents, resolveDir: dirname(args.path), loader: "js" };
      });
      build.onLoad({ filter: /.*/, namespace: BYTES }, (args) => ({ contents: readFileSync(args.path), loader: "binary" }));
    },
  };
}
