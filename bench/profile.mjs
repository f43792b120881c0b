// Profiles one variant of the benchmark with Chromium's sampling profiler and
// prints where the time goes (self time by function), to find what stands
// between wiggum-rpc and raw postMessage.
//
//   node bench/profile.mjs [variant] [workload]    (default: wiggum-rpc inFlight)
import { startServer } from "../scripts/serve.mjs";
import { launchChromium } from "../tests/js/browser.mjs";

const variant = process.argv[2] ?? "wiggum-rpc";
const workload = process.argv[3] ?? "inFlight";
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
  for (const [id, count] of counts) {
    const { functionName, url } = byId.get(id).callFrame;
    const key = `${functionName || "(anonymous)"} ${url.split("/").pop()}`;
    self.set(key, (self.get(key) ?? 0) + count);
    total += count;
  }
  const byFile = new Map();
  for (const [key, count] of self) {
    const file = key.split(" ").pop() || key;
    byFile.set(file, (byFile.get(file) ?? 0) + count);
  }
  console.log(`${variant} ${workload}: ${Math.round(rate)} calls/s; self time by file:`);
  for (const [file, count] of [...byFile].sort((a, b) => b[1] - a[1]).slice(0, 12)) {
    console.log(`${((100 * count) / total).toFixed(1).padStart(5)}%  ${file}`);
  }
  console.log("self time by function:");
  for (const [key, count] of [...self].sort((a, b) => b[1] - a[1]).slice(0, 30)) {
    console.log(`${((100 * count) / total).toFixed(1).padStart(5)}%  ${key}`);
  }
} finally {
  await browser.close();
  await server.close();
}
