// What webpack 5 asks of this package (see the README): WebAssembly as ES
// modules. The worker, its chunk and the .wasm need nothing more.
export default {
  mode: "production",
  entry: "./src/main.js",
  experiments: { asyncWebAssembly: true },
};
