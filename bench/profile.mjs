// Profiles one variant of the benchmark with Chromium's sampling profiler and
// prints where the time goes (self time by function), to find what stands
// between wiggum-rpc and raw postMessage.
//
//   node bench/profile.mjs [variant] [workload]    (default: wiggum-rpc inFlight)
import { buildPage } from "./build-page.mjs";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { SourceMapConsumer } from "source-map-js";
import { startServer } from "../scripts/serve.mjs";
import { launchChromium } from "../tests/js/browser.mjs";

const variant = process.argv[2] ?? "wiggum-rpc";
const workload = process.argv[3] ?? "inFlight";
const root = new URL("..", import.meta.url).pathname;
await buildPage(root);
const server = await startServer();
const browser = await launchChromium();
try {
  const page = await browser.newPage();
  await page.goto(`${server.url}bench/`);
  await page.waitForFunction(() => window.benchmarkReady === true);
  const session = await page.context().newCDPSession(page);
  await session.send("Profiler.enable");
  await session.send("Profiler.setSamplingInterval", { interval: 50 });
  await page.evaluate(() => window.runBenchmark({ smoke: true, runs: 1 }));
  await session.send("Profiler.start");
  const rate = await page.evaluate(([v, w]) => window.profileVariant(v, w), [variant, workload]);
  const { profile } = await session.send("Profiler.stop");
  const self = new Map();
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const counts = new Map();
  for (const id of profile.samples) counts.set(id, (counts.get(id) ?? 0) + 1);
  let total = 0;
  // A minified function of the web build is named by where its source map says it starts.
  const maps = new Map();
  const original = ({ url, lineNumber, columnNumber }) => {
    const file = url.split("/").pop();
    if (!maps.has(file)) {
      const map = join(root, "pkg-web", `${file}.map`);
      maps.set(file, url.includes("/pkg/") && existsSync(map) ? new SourceMapConsumer(JSON.parse(readFileSync(map, "utf8"))) : null);
    }
    const at = maps.get(file)?.originalPositionFor({ line: lineNumber + 1, column: columnNumber });
    return at?.source ? ` (${at.source.split("/").slice(-2).join("/")}:${at.line})` : "";
  };
  for (const [id, count] of counts) {
    const { callFrame } = byId.get(id);
    const { functionName, url } = callFrame;
    const key = `${functionName || "(anonymous)"} ${url.split("/").pop()}${original(callFrame)}`;
    self.set(key, (self.get(key) ?? 0) + count);
    total += count;
  }
  const byFile = new Map();
  for (const [key, count] of self) {
    const file = key.split(" ")[1] || key;
    byFile.set(file, (byFile.get(file) ?? 0) + count);
  }
  console.log(`${variant} ${workload}: ${Math.round(rate)} calls/s; self time by file:`);
  for (const [file, count] of [...byFile].sort((a, b) => b[1] - a[1]).slice(0, 12)) {
    console.log(`${((100 * count) / total).toFixed(1).padStart(5)}%  ${file}`);
  }
  console.log("self time by function:");
  for (const [key, count] of [...self].sort((a, b) => b[1] - a[1]).slice(0, 40)) {
    console.log(`${((100 * count) / total).toFixed(1).padStart(5)}%  ${key}`);
  }
} finally {
  await browser.close();
  await server.close();
}
