// SPIKE: runs spike/bench-page.js in headless Chromium (and Firefox with
// --firefox, over WebDriver when available): round trips/s and
// 1000-in-flight calls/s, the spike against today's web build (pkg/web).
//   node spike/browser-bench.mjs [--firefox | --firefox-only]
import { join } from "node:path";
import { startServer } from "../scripts/serve.mjs";
import { launchChromium } from "../tests/js/browser.mjs";
import { launchFirefox } from "../tests/js/firefox.mjs";

const root = new URL("..", import.meta.url).pathname;
const server = await startServer({ mounts: [["/pkg/", join(root, "pkg/web")], ["/spike/", join(root, "spike")]] });
const fmt = (xs) => xs.map((x) => Math.round(x).toLocaleString("en")).join(", ");
const median = (xs) => [...xs].sort((p, q) => p - q)[1];
const report = (name, results) => {
  console.log(name);
  for (const which of ["raw", "pkg"]) {
    console.log(`  ${which}: sequential round trips/s: ${fmt(results[which].seq)} | 1000-in-flight calls/s: ${fmt(results[which].par)}`);
  }
  console.log(`  bare MessageChannel echo round trips/s: ${fmt(results.echo)}`);
  console.log(`  ratio raw/pkg (medians): sequential ${(median(results.raw.seq) / median(results.pkg.seq)).toFixed(2)}, in flight ${(median(results.raw.par) / median(results.pkg.par)).toFixed(2)}`);
};
const url = `${server.url}spike/bench.html`;
if (!process.argv.includes("--firefox-only")) {
  const browser = await launchChromium();
  const page = await browser.newPage();
  page.on("pageerror", (error) => console.error("page error:", error));
  await page.goto(url);
  await page.waitForFunction(() => window.ready === true, null, { timeout: 30000 });
  const results = await page.evaluate(() => window.runBench(20000, 30));
  report(`Chromium ${browser.version()}`, results);
  await browser.close();
}
if (process.argv.includes("--firefox") || process.argv.includes("--firefox-only")) {
  const firefox = await launchFirefox();
  const tab = await firefox.open(url);
  await firefox.evaluate(tab, async () => {
    while (window.ready !== true) await new Promise((r) => setTimeout(r, 50));
  });
  const results = await firefox.evaluate(tab, async () => window.runBench(20000, 30));
  report("Firefox", results);
  await firefox.close();
}
await server.close();
process.exit(0);
