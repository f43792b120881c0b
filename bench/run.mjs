// Runs the benchmark page in headless Chromium, then in headless Firefox
// (over WebDriver), and prints, from one run of each, the cold start of a
// worker and of an iframe per variant (uncached, and from the HTTP cache),
// requests per second (medians of 5 runs), wiggum-rpc's ratios to the others,
// a worker's calls back to a page's function passed by reference (wiggum-rpc's
// references flavour beside comlink, Cap'n Web and a call by name),
// and the package's size: the web build the page loads (its root entry), and
// what a page pays for each entry of the npm package (pkg/, when built). A benchmark, not a
// test: it never fails on speed.
//
//   node bench/run.mjs            full run
//   node bench/run.mjs --smoke    a few calls each, to prove it still works
//   node bench/run.mjs --only="1 MB payload" --runs=7    one measure (or several, comma-separated), more runs (--only=pool: the pools only; --only="callback by reference": the calls back)
//   node bench/run.mjs --browser=chromium     one browser only (chromium or firefox)
//   node bench/run.mjs --sizes    the size tables only (no browser)
//   node bench/run.mjs --json=FILE    also write the results as JSON (the docs' charts are drawn from it)
import { build } from "esbuild";
import { NODE_ONLY, buildPage } from "./build-page.mjs";
import { bundledSize, entrySizes as measuredEntries, servedSizes, subpathFile } from "../scripts/entry-sizes.mjs";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import os from "node:os";
import { startServer } from "../scripts/serve.mjs";
import { launchChromium } from "../tests/js/browser.mjs";
import { launchFirefox } from "../tests/js/firefox.mjs";

const smoke = process.argv.includes("--smoke");
const option = (name) => process.argv.find((arg) => arg.startsWith(`--${name}=`))?.slice(name.length + 3);
const only = option("only");
const runsWanted = option("runs") && Number(option("runs"));
const root = new URL("..", import.meta.url).pathname;

await buildPage(root);
// The cold-start workers and frames, one bundle each (no variant pays for another's
// library), wiggum-rpc's JS bundled in as a bundler would; and one that
// loads the web build's files as served.
const webBuild = {
  name: "web-build",
  setup(builder) {
    builder.onResolve({ filter: /^\/pkg\// }, (args) => ({ path: join(root, "pkg-web", args.path.slice(5)) }));
  },
};
const frames = ["raw", "comlink", "json-rpc-2.0", "birpc", "capnweb", "penpal", "comctx", "wiggum-rpc", "wiggum-rpc-shared"];
for (const kind of ["workers", "frames"]) {
  await build({
    entryPoints: frames.map((name) => join(root, `bench/${kind}/${name}.js`)),
    bundle: true,
    minify: true,
    format: "esm",
    outdir: join(root, `bench/dist/${kind}`),
    plugins: [webBuild],
    logLevel: "warning",
  });
}
for (const name of frames) {
  writeFileSync(join(root, `bench/dist/frames/${name}.html`), `<!doctype html><meta charset="utf-8"><link rel="icon" href="data:,"><script type="module" src="${name}.js"></script>\n`);
}
// The pool benchmark's workers: wiggum-rpc's bundled as a bundler would (the page hands it the module), workerpool's;
// and the cold start's worker that fetches its own .wasm (no frame of its kind).
await build({
  entryPoints: ["pool-wiggum", "pool-workerpool", "wiggum-rpc-own"].map((name) => join(root, `bench/workers/${name}.js`)),
  bundle: true,
  minify: true,
  format: "esm",
  external: NODE_ONLY,
  outdir: join(root, "bench/dist/workers"),
  plugins: [webBuild],
  logLevel: "warning",
});
await build({
  entryPoints: [join(root, "bench/workers/wiggum-rpc-served.js")],
  bundle: true,
  format: "esm",
  outdir: join(root, "bench/dist/workers"),
  external: ["/pkg/*"],
  logLevel: "warning",
});
// The callback-by-reference measure's workers; wiggum-rpc's loads the references flavour as served.
await build({
  entryPoints: ["callback-wiggum", "callback-comlink", "callback-capnweb"].map((name) => join(root, `bench/workers/${name}.js`)),
  bundle: true,
  format: "esm",
  outdir: join(root, "bench/dist/workers"),
  external: ["/pkg-references/*"],
  logLevel: "warning",
});

/**
 * What a page pays for each entry of the npm package (scripts/entry-sizes.mjs,
 * the measure of the README and the size budget), labelled as this page's
 * tables have them; empty when pkg/ has not been built.
 */
async function entrySizes() {
  return (await measuredEntries()).map(({ entry, wasm, js }) => {
    if (entry === "wiggum-rpc") return ["`wiggum-rpc` (bundled: esbuild, minified)", wasm, js];
    if (entry === "wiggum-rpc/web") return ["`wiggum-rpc/web` (no bundler: files as served)", wasm, js];
    return [`+ \`${entry}\``, wasm, js];
  });
}

const VARIANTS = ["raw", "json-rpc-2.0", "comlink", "birpc", "Cap'n Web", "penpal", "comctx", "wiggum-rpc", "wiggum-rpc, traced", "wiggum-rpc, empty chains", "wiggum-rpc, otel"];
// wiggum-rpc with something added, each a ratio to it.
const ADDED = [["traced", "wiggum-rpc, traced"], ["empty chains", "wiggum-rpc, empty chains"], ["otel", "wiggum-rpc, otel"]];
const MEASURES = ["sequential", "64 in flight", "1024 in flight", "1 MB payload"];
/** A browser's results, in the page's order (WebDriver does not keep an object's key order). */
const measured = (results) => MEASURES.filter((label) => label in results).map((label) => [label, results[label]]);
const browsers = (option("browser") ?? "chromium,firefox").split(",");
// The callback-by-reference measure: its own page function (bench/references.js), variants and table.
const REFERENCES = "callback by reference";
const REFERENCE_MEASURES = ["sequential", "64 in flight"];
const REFERENCE_VARIANTS = ["wiggum-rpc, reference(fn)", "wiggum-rpc, peer.request by name", "comlink, Comlink.proxy(fn)", "Cap'n Web, function stub"];
const wanted = (label) => !only || only.split(",").includes(label);

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

/**
 * The throughput measures `labels` through `run(options)` (the page's
 * `runBenchmark`, or `runReferences`), asked for one run of one measure at a time: a WebDriver
 * script, and Node's fetch of its answer, must end within minutes, and a
 * whole run of a slow variant (comctx with 1,024 calls in flight) takes
 * longer. Each variant's median of the runs, in calls per second.
 */
async function throughput(run, options, labels) {
  const runs = options.runs ?? 5;
  const samples = {};
  for (let firstRun = 0; firstRun < runs; firstRun++) {
    for (const label of labels) {
      const { results } = await run({ ...options, only: label, runs: 1, firstRun });
      for (const [variant, rate] of Object.entries(results[label])) ((samples[label] ??= {})[variant] ??= []).push(rate);
    }
  }
  const results = {};
  for (const label of labels.filter((label) => label in samples)) {
    results[label] = Object.fromEntries(Object.entries(samples[label]).map(([variant, rates]) => [variant, median(rates)]));
  }
  return { runs, smoke: options.smoke, results };
}

/**
 * The benchmark page's results in Chromium, with the browser's version, and
 * the cold starts: from the page at `url` (nothing cached) and at `cachedUrl`
 * (a server that lets the HTTP cache keep the scripts and the .wasm).
 */
async function inChromium(url, cachedUrl, options) {
  // gc() and exact heap sizes for the load measures' memory readings.
  const browser = await launchChromium({ args: ["--js-flags=--expose-gc", "--enable-precise-memory-info"] });
  try {
    const page = await browser.newPage();
    const errors = [];
    page.on("pageerror", (error) => errors.push(error));
    await page.goto(url);
    await page.waitForFunction(() => window.benchmarkReady === true);
    const run = (name) => (each) => page.evaluate(([name, each]) => window[name](each), [name, each]);
    const outcome = await throughput(run("runBenchmark"), options, MEASURES.filter(wanted));
    outcome.references = wanted(REFERENCES) && (await throughput(run("runReferences"), options, REFERENCE_MEASURES));
    outcome.load = options.load && (await page.evaluate((scale) => window.runLoad({ scale }), options.scale));
    outcome.pool = options.pool && (await page.evaluate((smoke) => window.runPool({ smoke }), options.smoke));
    const uncached = await page.evaluate((starts) => window.runColdStart({ starts }), options.starts);
    await page.goto(cachedUrl);
    await page.waitForFunction(() => window.benchmarkReady === true);
    const cached = await page.evaluate((starts) => window.runColdStart({ starts }), options.starts);
    if (errors.length) throw errors[0];
    return { ...outcome, cold: { uncached, cached }, version: `Chromium ${browser.version()}` };
  } finally {
    await browser.close();
  }
}

/** The same in Firefox, driven over WebDriver. */
async function inFirefox(url, cachedUrl, options) {
  const firefox = await launchFirefox();
  const ready = async () => {
    while (window.benchmarkReady !== true) await new Promise((resolve) => setTimeout(resolve, 50));
  };
  try {
    const tab = await firefox.open(url);
    const version = await firefox.evaluate(tab, async (ready) => {
      await new Function(`return (${ready})()`)();
      return navigator.userAgent.match(/Firefox\/[\d.]+/)?.[0];
    }, String(ready));
    const run = (name) => (each) => firefox.evaluate(tab, (name, each) => window[name](each), name, each);
    const outcome = await throughput(run("runBenchmark"), options, MEASURES.filter(wanted));
    outcome.references = wanted(REFERENCES) && (await throughput(run("runReferences"), options, REFERENCE_MEASURES));
    outcome.version = version;
    outcome.uncached = await firefox.evaluate(tab, (starts) => window.runColdStart({ starts }), options.starts);
    outcome.load = options.load && (await firefox.evaluate(tab, (scale) => window.runLoad({ scale }), options.scale));
    outcome.pool = options.pool && (await firefox.evaluate(tab, (smoke) => window.runPool({ smoke }), options.smoke));
    await firefox.open(cachedUrl, tab);
    const cached = await firefox.evaluate(tab, async (starts, ready) => {
      await new Function(`return (${ready})()`)();
      return window.runColdStart({ starts });
    }, options.starts, String(ready));
    const { uncached, ...rest } = outcome;
    return { ...rest, cold: { uncached, cached } };
  } finally {
    await firefox.close();
  }
}

const COLD_VARIANTS = ["raw", "comlink", "json-rpc-2.0", "birpc", "Cap'n Web", "penpal", "comctx", "wiggum-rpc", "wiggum-rpc, own fetch", "wiggum-rpc, module shared", "wiggum-rpc, files as served"];

/** Cold starts, worker and iframe: each variant's median, uncached and cached, and wiggum-rpc's distance to comlink. */
function coldTable({ cold: { uncached, cached } }, starts) {
  const ms = (n) => `${n.toFixed(1)} ms`;
  const lines = [];
  for (const [kind, created] of [["worker", "new Worker()"], ["iframe", "iframe created"]]) {
    lines.push(`| ${created} → first answer (median of ${starts}) | uncached | from the HTTP cache |`, "| --- | ---: | ---: |");
    const variants = COLD_VARIANTS.filter((variant) => variant in cached[kind]);
    for (const variant of variants) lines.push(`| ${variant} | ${ms(uncached[kind][variant])} | ${ms(cached[kind][variant])} |`);
    for (const ours of ["wiggum-rpc", "wiggum-rpc, own fetch", "wiggum-rpc, module shared"].filter((variant) => variant in cached[kind])) {
      const behind = (times) => ms(times[kind][ours] - times[kind].comlink);
      lines.push(`| ${ours} − comlink | ${behind(uncached)} | ${behind(cached)} |`);
    }
    lines.push("");
  }
  return lines.join("\n").trimEnd();
}

/** The load measures: time, rate, and memory before and after each. */
/** The pool benchmark: calls a second per pool size, wiggum-rpc's pool ÷ workerpool, and each one's scaling. */
function poolTable({ workers, rounds, results }) {
  const ours = results["wiggum-rpc"];
  const theirs = results.workerpool;
  const rate = (n) => Math.round(n).toLocaleString("en-US");
  const lines = [
    `CPU-bound calls (${rounds.toLocaleString("en-US")} rounds of arithmetic each) and tiny ones, all in flight, calls a second:`,
    "",
    "| workers | CPU: wiggum-rpc | CPU: workerpool | ÷ | wiggum-rpc scaling | tiny: wiggum-rpc | tiny: workerpool | ÷ |",
    "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
  ];
  for (const size of workers) {
    const [a, b] = [ours[size], theirs[size]];
    const scaling = (a.cpu / ours[workers[0]].cpu).toFixed(2);
    lines.push(`| ${size} | ${rate(a.cpu)} | ${rate(b.cpu)} | ${(a.cpu / b.cpu).toFixed(2)} | ${scaling} | ${rate(a.tiny)} | ${rate(b.tiny)} | ${(a.tiny / b.tiny).toFixed(2)} |`);
  }
  return lines.join("\n");
}

function loadTable(load) {
  const mb = (bytes) => (bytes === null ? "—" : `${(bytes / 1024 / 1024).toFixed(1)} MB`);
  const lines = [
    "| load (wiggum-rpc Peers, MessageChannel) | time | calls/s | wasm memory before → after | JS heap before → after | wrong answers, left pending |",
    "| --- | ---: | ---: | ---: | ---: | ---: |",
  ];
  for (const [label, { ms, before, after, wrong, pending, calls: counted }] of load) {
    const calls = counted ?? Number(label.match(/^[\d,]+/)?.[0].replaceAll(",", "") ?? label.match(/× (\d+)/)[1]);
    const rate = Math.round(calls / (ms / 1000)).toLocaleString("en-US");
    lines.push(`| ${label} | ${(ms / 1000).toFixed(2)} s | ${rate} | ${mb(before.wasm)} → ${mb(after.wasm)} | ${mb(before.heap)} → ${mb(after.heap)} | ${wrong}, ${pending} |`);
  }
  return lines.join("\n");
}

// The libraries wiggum-rpc is compared with, each ratio a column.
const OTHERS = ["raw", "json-rpc-2.0", "comlink", "birpc", "Cap'n Web", "penpal", "comctx"];

function table({ results, runs }) {
  const fmt = (n) => (n >= 100 ? Math.round(n).toLocaleString("en-US") : n.toFixed(1));
  const lines = [
    `| measure (calls/s, median of ${runs}) | ${VARIANTS.join(" | ")} | ${OTHERS.map((other) => `wiggum ÷ ${other}`).join(" | ")} | ${ADDED.map(([name]) => `${name} ÷ plain`).join(" | ")} |`,
    `| --- | ${VARIANTS.map(() => "---:").join(" | ")} | ${OTHERS.map(() => "---:").join(" | ")} | ${ADDED.map(() => "---:").join(" | ")} |`,
  ];
  for (const [label, byVariant] of measured(results)) {
    const w = byVariant["wiggum-rpc"];
    const ratio = (other) => (w / byVariant[other]).toFixed(2);
    const added = ADDED.map(([, variant]) => (byVariant[variant] / w).toFixed(2));
    lines.push(`| ${label} | ${VARIANTS.map((v) => fmt(byVariant[v])).join(" | ")} | ${OTHERS.map(ratio).join(" | ")} | ${added.join(" | ")} |`);
  }
  return lines.join("\n");
}

/** A worker's calls back to the page: each variant's rate, and wiggum-rpc's stub's ratios to the others. */
function referencesTable({ results, runs }) {
  const fmt = (n) => (n >= 100 ? Math.round(n).toLocaleString("en-US") : n.toFixed(1));
  const [stub, byName, comlink, capnweb] = REFERENCE_VARIANTS;
  const ratios = [["comlink proxy", comlink], ["Cap'n Web", capnweb], ["wiggum plain call", byName]];
  const lines = [
    `| ${REFERENCES} (calls/s, median of ${runs}) | ${REFERENCE_VARIANTS.join(" | ")} | ${ratios.map(([name]) => `wiggum stub ÷ ${name}`).join(" | ")} |`,
    `| --- | ${REFERENCE_VARIANTS.map(() => "---:").join(" | ")} | ${ratios.map(() => "---:").join(" | ")} |`,
  ];
  for (const label of REFERENCE_MEASURES.filter((label) => label in results)) {
    const byVariant = results[label];
    const cells = ratios.map(([, other]) => (byVariant[stub] / byVariant[other]).toFixed(2));
    lines.push(`| ${label} | ${REFERENCE_VARIANTS.map((v) => fmt(byVariant[v])).join(" | ")} | ${cells.join(" | ")} |`);
  }
  return lines.join("\n");
}

/** wiggum-rpc's ratios in each browser, side by side. */
function sideBySide(outcomes) {
  const names = outcomes.map(([name]) => name);
  const lines = [
    `| measure | ${names.map((name) => OTHERS.map((other) => `${name}: ÷ ${other}`).join(" | ")).join(" | ")} |`,
    `| --- | ${names.map(() => OTHERS.map(() => "---:").join(" | ")).join(" | ")} |`,
  ];
  for (const [label] of measured(outcomes[0][1].results)) {
    const cells = outcomes.map(([, { results }]) => {
      const byVariant = results[label];
      const w = byVariant["wiggum-rpc"];
      return OTHERS.map((other) => (w / byVariant[other]).toFixed(2)).join(" | ");
    });
    lines.push(`| ${label} | ${cells.join(" | ")} |`);
  }
  return lines.join("\n");
}

/**
 * The libraries a page would use instead, each whole (every export
 * imported), measured as the root entry is: one esbuild bundle, minified,
 * gzip -9. Each package's own `browser`/`module` build is what esbuild picks.
 */
const RIVALS = [
  ["Cap'n Web", "capnweb"],
  ["json-rpc-2.0", "json-rpc-2.0"],
  ["comlink", "comlink"],
  ["birpc", "birpc"],
  ["penpal", "penpal"],
  ["comctx", "comctx"],
];

async function rivalSizes() {
  const rows = [];
  for (const [name, specifier] of RIVALS) {
    const version = JSON.parse(readFileSync(join(root, "node_modules", specifier, "package.json"), "utf8")).version;
    rows.push([`${name} ${version}`, await bundledSize(`import * as lib from "${specifier}"; globalThis.lib = lib;`)]);
  }
  return rows;
}

/** The size tables: the web build's files, then what each npm entry costs a page, beside the other libraries; returns them as data. */
async function printSizes() {
  const size = servedSizes(join(root, "pkg-web"), subpathFile);
  const data = { web: size, entries: [], rivals: [] };
  const kb = (n) => `${(n / 1024).toFixed(1)} KB`;
  console.log(`\n| size (release, wasm-opt -Os) | raw | gzip |\n| --- | ---: | ---: |`);
  console.log(`| .wasm | ${kb(size.wasm.raw)} | ${kb(size.wasm.gzip)} |`);
  console.log(`| JS glue + snippets | ${kb(size.glue.raw)} | ${kb(size.glue.gzip)} |`);
  console.log(`| total | ${kb(size.total.raw)} | ${kb(size.total.gzip)} |`);
  const entries = await entrySizes();
  data.entries = entries.map(([entry, wasm, js]) => ({ entry, wasm, js }));
  if (entries.length > 0) {
    console.log(`\n| npm package entry: what a page pays (gzip) | .wasm | JS | total |\n| --- | ---: | ---: | ---: |`);
    for (const [entry, wasm, js] of entries) console.log(`| ${entry} | ${kb(wasm)} | ${kb(js)} | ${kb(wasm + js)} |`);
    console.log("(`wiggum-rpc/framing` is for Node: no page loads it.)");
    const [, rootWasm, rootJs] = entries[0];
    console.log(`\n| the whole library, bundled (gzip) | total | ÷ wiggum-rpc's root entry |\n| --- | ---: | ---: |`);
    console.log(`| wiggum-rpc (root entry) | ${kb(rootWasm + rootJs)} | 1.00 |`);
    for (const [name, bytes] of await rivalSizes()) {
      console.log(`| ${name} | ${kb(bytes)} | ${(bytes / (rootWasm + rootJs)).toFixed(2)} |`);
      data.rivals.push({ name, bytes });
    }
  }
  return data;
}

/** Writes the run as JSON when asked (`--json=FILE`). */
function writeJson(run) {
  const file = option("json");
  if (!file) return;
  const machine = `${os.cpus().length} × ${os.cpus()[0]?.model ?? "cpu"}`;
  writeFileSync(file, `${JSON.stringify({ date: new Date().toISOString(), smoke, machine, ...run }, null, 2)}\n`);
  console.log(`\nresults as JSON: ${file}`);
}

if (process.argv.includes("--sizes")) {
  writeJson({ sizes: await printSizes() });
  process.exit(0);
}

// scripts/serve.mjs's mounts, with the references flavour's web build beside the plain one.
const mounts = [
  ["/pkg-references/", join(root, "pkg/references/web")],
  ["/pkg/", join(root, "pkg-web")],
  ["/bench/", join(root, "bench")],
  ["/", join(root, "www")],
];
const server = await startServer({ mounts });
const cachingServer = await startServer({ mounts, cache: true });
try {
  const url = `${server.url}bench/`;
  const cachedUrl = `${cachingServer.url}bench/`;
  // The load measures at full scale, or a hundredth of it in smoke mode; not with --only.
  const options = { smoke, only, runs: runsWanted, starts: smoke ? 2 : 20, load: !only, pool: !only || only === "pool", scale: smoke ? 0.01 : 1 };
  const outcomes = [];
  if (browsers.includes("chromium")) outcomes.push(["Chromium", await inChromium(url, cachedUrl, options)]);
  if (browsers.includes("firefox")) outcomes.push(["Firefox", await inFirefox(url, cachedUrl, options)]);
  console.log(smoke ? "wiggum-rpc benchmark (smoke mode: too few calls to mean anything)" : "wiggum-rpc benchmark");
  console.log(`machine: ${os.cpus().length} × ${os.cpus()[0]?.model ?? "cpu"}; one page, MessageChannel`);
  const anyMeasure = MEASURES.some(wanted);
  if (anyMeasure) for (const [name, outcome] of outcomes) console.log(`\n${name} (${outcome.version}, headless)\n\n${table(outcome)}`);
  if (anyMeasure && outcomes.length > 1) console.log(`\nwiggum-rpc's ratios, side by side\n\n${sideBySide(outcomes)}`);
  for (const [name, outcome] of outcomes) {
    if (outcome.references) console.log(`\nA worker calls back a function of the page, ${name} (${outcome.version}, headless)\n\n${referencesTable(outcome.references)}`);
  }
  for (const [name, outcome] of outcomes) console.log(`\nCold start, ${name}\n\n${coldTable(outcome, options.starts)}`);
  for (const [name, outcome] of outcomes) if (outcome.load) console.log(`\nUnder load, ${name}\n\n${loadTable(outcome.load)}`);
  for (const [name, outcome] of outcomes) if (outcome.pool) console.log(`\nA pool of workers beside workerpool, ${name}\n\n${poolTable(outcome.pool)}`);
  const sizesData = await printSizes();
  writeJson({
    variants: VARIANTS,
    coldVariants: COLD_VARIANTS,
    browsers: outcomes.map(([name, { version, results, runs, cold, pool, references }]) => ({
      name,
      version,
      runs,
      results: Object.fromEntries(measured(results)),
      cold,
      pool,
      references: references ? references.results : undefined,
    })),
    sizes: sizesData,
  });
} finally {
  await server.close();
  await cachingServer.close();
}
