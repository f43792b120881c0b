// What Vite asks of this package (see the README): workers as ES modules
// (its default, "iife", has no top-level await, which a WebAssembly
// ES-module import needs), and the package left out of the dev server's
// dependency pre-bundling (which does not carry the .wasm import along).
export default {
  worker: { format: "es" },
  optimizeDeps: { exclude: ["wiggum-rpc"] },
};
