// Bundles the glue the bindings' browser tests import (src/bindings/tests.rs,
// Cargo feature `bindings-test`): tests/bindings/harness.js, with abi.js and
// the root entry's classes in it, as target/bindings-test/glue.js, a
// wasm-bindgen snippet (one file: wasm-bindgen copies a snippet, not what
// it imports). The plain build's glue: no references, no hand-off, no Node.
//
//   node scripts/bindings-test-glue.mjs
import { build } from "esbuild";
import { join } from "node:path";

const root = new URL("..", import.meta.url).pathname;
await build({
  entryPoints: [join(root, "tests/bindings/harness.js")],
  bundle: true,
  format: "esm",
  outfile: join(root, "target/bindings-test/glue.js"),
  define: { WITH_REFERENCES: "false", WITH_HANDOFF: "false", WITH_NODE: "false" },
  logLevel: "warning",
});
