// The package under a page's Content-Security-Policy, in Chromium and
// Firefox (tests/js/pages/csp.js): with `script-src 'self'` (the usual strict
// policy) loading fails with an error that says what to add
// ('wasm-unsafe-eval') and where, from init() in the no-bundler build and
// from the import of an esbuild bundle of the root entry; with
// `script-src 'self' 'wasm-unsafe-eval'` both load and answer a call.
import { after, before, test } from "node:test";
import { mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import assert from "node:assert/strict";
import { launchChromium, startPagesServer } from "./browser.mjs";
import { launchFirefox } from "./firefox.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const vendor = join(here, "pages/vendor");
const STRICT = "script-src 'self'";
const ALLOWING = "script-src 'self' 'wasm-unsafe-eval'";

let server;
let chromium;
let firefox;
before(async () => {
  const { wasmPlugin } = await import("../../pkg/esbuild.js");
  mkdirSync(vendor, { recursive: true });
  await build({
    stdin: { contents: 'export { Peer, portTransport } from "wiggum-rpc";', resolveDir: here },
    bundle: true,
    format: "esm",
    outfile: join(vendor, "csp-bundle.js"),
    alias: { "wiggum-rpc": join(here, "../../pkg/wiggum_rpc.js") },
    plugins: [wasmPlugin()],
    logLevel: "warning",
  });
  server = await startPagesServer();
  chromium = await launchChromium();
  firefox = await launchFirefox();
});
after(async () => {
  await chromium?.close();
  await firefox?.close();
  await server?.close();
});

/** What the page at `url` put in `window.result`. */
async function resultIn(browser, url) {
  const wait = async (evaluate) => {
    for (let waited = 0; waited < 30_000; waited += 50) {
      const result = await evaluate();
      if (result) return result;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`${url}: no result`);
  };
  if (browser === "Chromium") {
    const page = await chromium.newPage();
    try {
      await page.goto(url);
      return await wait(() => page.evaluate(() => window.result));
    } finally {
      await page.close();
    }
  }
  const tab = await firefox.open(url);
  return wait(() => firefox.evaluate(tab, async () => window.result ?? null));
}

for (const browser of ["Chromium", "Firefox"]) {
  for (const build of ["web", "bundled"]) {
    test(`${browser}, ${build === "web" ? "init() without a bundler" : "an esbuild bundle"}: a policy without 'wasm-unsafe-eval' is named, one with it loads`, { timeout: 90_000 }, async () => {
      const page = (policy) => `${server.url}csp.html?build=${build}&csp=${encodeURIComponent(policy)}`;
      const refused = await resultIn(browser, page(STRICT));
      console.log(`${browser}, ${build}, ${STRICT}: ${JSON.stringify(refused)}`);
      assert.equal(refused.answer, undefined, "the strict policy did refuse WebAssembly");
      assert.match(refused.error, /'wasm-unsafe-eval'/);
      assert.match(refused.error, /script-src/);
      assert.match(refused.error, /worker/);
      assert.match(refused.error, /frame/);
      const allowed = await resultIn(browser, page(ALLOWING));
      console.log(`${browser}, ${build}, ${ALLOWING}: ${JSON.stringify(allowed)}`);
      assert.deepEqual(allowed, { answer: 5 });
    });
  }
}
