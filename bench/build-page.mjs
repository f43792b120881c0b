// Bundles the benchmark page (bench/page.js → bench/dist/page.js) and the
// OpenTelemetry API its import map names (wiggum-rpc/otel, served as built,
// imports it by name): what bench/run.mjs and bench/profile.mjs both load.
import { build } from "esbuild";
import { join } from "node:path";

/** Node modules a library of the page names on paths a browser never takes. */
export const NODE_ONLY = ["worker_threads", "os", "child_process"];

export async function buildPage(root) {
  await build({
    entryPoints: [join(root, "node_modules/@opentelemetry/api/build/esm/index.js")],
    bundle: true,
    format: "esm",
    outfile: join(root, "bench/dist/otel-api.js"),
    logLevel: "warning",
  });
  await build({
    entryPoints: [join(root, "bench/page.js")],
    bundle: true,
    format: "esm",
    outfile: join(root, "bench/dist/page.js"),
    // workerpool's Node paths, never taken in a browser; the package as served; the API by its import map.
    external: ["/pkg/*", "/pkg-references/*", "@opentelemetry/api", ...NODE_ONLY],
    logLevel: "warning",
  });
}
