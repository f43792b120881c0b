// The demo's third-party code, made servable from www/vendor/ (not committed):
// ZenFS bundled as one browser module (its packages import each other by
// name, which a browser without a bundler cannot resolve), and esbuild-wasm's
// browser build with its .wasm, as npm ships them.
//
//   node scripts/build-demo.mjs   (scripts/demo.sh and the demo's tests run it)
import { cpSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { build } from "esbuild";

const root = new URL("..", import.meta.url).pathname;
const vendor = join(root, "www/vendor");
mkdirSync(join(vendor, "esbuild"), { recursive: true });
for (const file of ["esm/browser.min.js", "esbuild.wasm"]) {
  cpSync(join(root, "node_modules/esbuild-wasm", file), join(vendor, "esbuild", file.split("/").pop()));
}
await build({
  stdin: {
    contents: 'export { attachFS, configure, fs, InMemory, mounts, Port } from "@zenfs/core";',
    resolveDir: root,
    sourcefile: "zenfs-entry.js",
  },
  bundle: true,
  format: "esm",
  platform: "browser",
  minify: true,
  outfile: join(vendor, "zenfs.js"),
  logLevel: "warning",
});
writeFileSync(join(vendor, "README.txt"), "Made by scripts/build-demo.mjs from node_modules: esbuild-wasm and @zenfs/core.\n");
console.log("build-demo: www/vendor/ (esbuild-wasm, ZenFS)");
