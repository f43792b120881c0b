// Counts the JS functions one sequential round trip runs in the package's
// glue (the functions the module imports, the reader, the classes, the
// postMessage transport): Chromium's precise
// coverage with call counts over `calls` round trips between a client and a
// server on a MessageChannel in one page, each count divided by `calls`
// (or, given a width, that many calls in flight at a time: a batch each way).
// The module's exports are called directly, so they do not show here: the
// crossings of the JS↔wasm boundary are bench/boundary.mjs's count. Names
// come from the build's source map, so the table reads as the sources do.
//
//   node bench/crossings.mjs [calls] [width]    (default 1,000 calls, one at a time; the web build in pkg-web/)
import { readFileSync } from "node:fs";
import { SourceMap } from "node:module";
import { join } from "node:path";
import { launchChromium, startPagesServer } from "../tests/js/browser.mjs";

const calls = Number(process.argv[2] ?? 1000);
const width = Number(process.argv[3] ?? 1);
const root = new URL("..", import.meta.url).pathname;
const glue = readFileSync(join(root, "pkg-web/wiggum_rpc.js"), "utf8");
const map = new SourceMap(JSON.parse(readFileSync(join(root, "pkg-web/wiggum_rpc.js.map"), "utf8")));
const sources = new Map();

/** The original file and line of `offset` in the minified glue, with the line's text. */
function original(offset) {
  const before = glue.slice(0, offset);
  const line = before.split("\n").length - 1;
  const column = offset - (before.lastIndexOf("\n") + 1);
  const entry = map.findEntry(line, column);
  if (!entry?.originalSource) return { where: `wiggum_rpc.js@${offset}`, text: "" };
  const file = entry.originalSource.replace(/^.*\/(js|pkg-web|src)\//, "$1/");
  if (!sources.has(entry.originalSource)) {
    const index = map.payload.sources.indexOf(entry.originalSource);
    sources.set(entry.originalSource, (map.payload.sourcesContent?.[index] ?? "").split("\n"));
  }
  const text = sources.get(entry.originalSource)[entry.originalLine]?.trim().slice(0, 90) ?? "";
  return { where: `${file}:${entry.originalLine + 1}`, text };
}

const server = await startPagesServer();
const browser = await launchChromium();
try {
  const page = await browser.newPage();
  await page.goto(`${server.url}blank.html`);
  await page.evaluate(async () => {
    const lib = await import("/pkg/wiggum_rpc.js");
    await lib.default();
    const { port1, port2 } = new MessageChannel();
    const server = new lib.JSONRPCServer(lib.portTransport(port1));
    server.method("add", ([a, b]) => a + b);
    const client = new lib.JSONRPCClient(lib.portTransport(port2));
    window.roundTrips = async (n, width) => {
      let next = 0;
      const lane = async () => {
        while (next < n) {
          const i = next++;
          if ((await client.request("add", [i, 1])) !== i + 1) throw new Error("wrong result");
        }
      };
      await Promise.all(Array.from({ length: width }, lane));
    };
    await window.roundTrips(100, 1); // the hello and its answer, out of the count
  });
  const session = await page.context().newCDPSession(page);
  await session.send("Profiler.enable");
  await session.send("Profiler.startPreciseCoverage", { callCount: true, detailed: false });
  await session.send("Profiler.takePreciseCoverage"); // resets the counts
  await page.evaluate(([n, w]) => window.roundTrips(n, w), [calls, width]);
  const { result } = await session.send("Profiler.takePreciseCoverage");
  await session.send("Profiler.stopPreciseCoverage");
  const rows = [];
  for (const script of result.filter((s) => s.url.endsWith("/pkg/wiggum_rpc.js"))) {
    for (const fn of script.functions) {
      const [range] = fn.ranges;
      const perTrip = range.count / calls;
      if (perTrip < 0.5) continue;
      rows.push({ perTrip, ...original(range.startOffset) });
    }
  }
  rows.sort((a, b) => b.perTrip - a.perTrip || a.where.localeCompare(b.where));
  const total = rows.reduce((sum, row) => sum + row.perTrip, 0);
  const how = width === 1 ? "one at a time" : `${width} in flight`;
  console.log(`JS functions of the package per round trip (${calls.toLocaleString("en-US")} round trips, ${how}, client and server in one page):\n`);
  console.log("| per round trip | where | what |\n| ---: | --- | --- |");
  for (const { perTrip, where, text } of rows) console.log(`| ${perTrip.toFixed(2)} | ${where} | \`${text.replaceAll("|", "\\|")}\` |`);
  console.log(`\n${total.toFixed(1)} calls of ${rows.length} distinct functions per round trip`);
} finally {
  await browser.close();
  await server.close();
}
