// The docs site, built as a reader gets it: the API reference generated from
// the package's declarations, the benchmark's charts drawn from its JSON, the
// VitePress build (a dead link or a page that does not build fails it), every
// example of the README and the docs type-checked and the runnable ones run,
// and the benchmark page's charts seen in Chromium (target/docs-benchmark.png).
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { charts } from "../../scripts/bench-charts.mjs";
import { checkExamples, fences, pages } from "../../scripts/doc-examples.mjs";
import { startServer } from "../../scripts/serve.mjs";
import { launchChromium } from "./browser.mjs";

const root = new URL("../..", import.meta.url).pathname;
const docs = join(root, "docs");
const dist = join(docs, ".vitepress/dist");
const bin = (name) => join(root, "node_modules/.bin", name);
const results = JSON.parse(readFileSync(join(docs, "benchmark/results.json"), "utf8"));

test("the README is one screen of what a user needs, at most 250 lines", () => {
  const lines = readFileSync(join(root, "README.md"), "utf8").split("\n").length;
  assert.ok(lines <= 250, `README.md has ${lines} lines`);
});

test("the API reference is generated from the package's declarations, one module per entry", () => {
  execFileSync(bin("typedoc"), ["--options", "typedoc.json"], { cwd: docs, stdio: "inherit" });
  const modules = readdirSync(join(docs, "api/wiggum-rpc"), { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name);
  for (const entry of ["websocket", "http", "hub", "pool", "remote", "stream", "trace", "contracts", "introspection", "middleware", "otel", "framing", "redis"]) {
    assert.ok(modules.includes(entry), `docs/api has wiggum-rpc/${entry}`);
  }
  const rootApi = readFileSync(join(docs, "api/wiggum-rpc/index.md"), "utf8");
  for (const name of ["Peer", "JSONRPCClient", "JSONRPCServer", "RPCError", "workerTransport"]) assert.match(rootApi, new RegExp(`\\b${name}\\b`));
});

test("the benchmark's charts are drawn from its JSON: throughput and cold start per browser, sizes", () => {
  execFileSync(process.execPath, [join(root, "scripts/bench-charts.mjs"), join(docs, "benchmark/results.json"), join(docs, "public/benchmark")]);
  const drawn = charts(results).map(([file]) => file);
  for (const browser of results.browsers) {
    const slug = browser.name.toLowerCase();
    assert.ok(drawn.includes(`throughput-${slug}.svg`) && drawn.includes(`cold-start-${slug}.svg`), slug);
  }
  assert.ok(drawn.includes("sizes.svg"));
  const sizes = readFileSync(join(docs, "public/benchmark/sizes.svg"), "utf8");
  for (const rival of ["Cap'n Web", "json-rpc-2.0", "comlink", "birpc"]) assert.ok(sizes.includes(rival), rival);
});

test("the site builds with VitePress, every page and link", () => {
  execFileSync(bin("vitepress"), ["build", "docs"], { cwd: root, stdio: "inherit" });
  for (const page of pages().filter((p) => p.startsWith(docs))) {
    const html = join(dist, page.slice(docs.length).replace(/\.md$/, ".html"));
    assert.ok(existsSync(html), `${html} was built`);
  }
});

test("every example of the README and the docs type-checks, and the runnable ones run", { timeout: 600_000 }, async () => {
  const { checked, ran, failures } = await checkExamples();
  console.log(`examples: ${checked} type-checked, ${ran} run`);
  assert.deepEqual(failures, []);
  assert.ok(checked >= 40 && ran >= 15, `${checked} checked, ${ran} run`);
});

test("an example a reader could not run as printed fails the check, though it type-checks", { timeout: 300_000 }, async () => {
  const page = join(root, "target/doc-examples-unrunnable.md");
  const fence = (info, code) => `\`\`\`${info}\n${code}\n\`\`\`\n`;
  writeFileSync(
    page,
    [
      "# Defects each check must catch",
      // A service worker written in TypeScript: a browser loads it as printed.
      fence("ts", '// sw.js, a module service worker\nimport init from "wiggum-rpc/web";\nconst ready: Promise<unknown> = init();\nvoid ready;'),
      // A JavaScript companion with TypeScript in it.
      fence("js file=worker.js", 'import { Peer, selfTransport } from "wiggum-rpc";\nconst peer = new Peer(selfTransport());\npeer.method("add", ([a, b]: [number, number]) => a + b);'),
      // A whole program that is not run, with no reason given.
      fence("ts", 'import { Peer, portTransport } from "wiggum-rpc";\nconst { port1 } = new MessageChannel();\nnew Peer(portTransport(port1)).destroy();'),
      // The same with its reason: accepted.
      fence('ts no-run="needs a server"', 'import { Peer, portTransport } from "wiggum-rpc";\nconst { port2 } = new MessageChannel();\nnew Peer(portTransport(port2)).destroy();'),
    ].join("\n"),
  );
  try {
    const { failures } = await checkExamples([page]);
    const [sw, companion, whole, excused] = fences(page).map(({ line }) =>
      failures.filter((failure) => failure.startsWith(`target/doc-examples-unrunnable.md:${line}:`)).join("\n"),
    );
    assert.match(sw, /sw\.js is JavaScript, so its fence must be `js`/);
    assert.match(sw, /sw\.js does not parse as JavaScript/);
    assert.match(companion, /worker\.js does not parse as JavaScript/);
    assert.match(companion, /file=worker\.js is a companion of no example that runs/);
    assert.match(whole, /a whole program that is not run/);
    assert.equal(excused, "");
  } finally {
    rmSync(page, { force: true });
  }
});

test("the benchmark page shows its charts in Chromium", async () => {
  const server = await startServer({ mounts: [["/", dist]] });
  const browser = await launchChromium();
  try {
    const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
    await page.goto(`${server.url}benchmark.html`);
    const images = await page.$$eval("img", (all) =>
      all.filter((img) => img.src.includes("/benchmark/")).map((img) => ({ src: img.src, width: img.naturalWidth, done: img.complete })),
    );
    assert.ok(images.length >= 5, `${images.length} charts`);
    for (const image of images) assert.ok(image.done && image.width > 0, `${image.src} loaded`);
    await page.screenshot({ path: join(root, "target/docs-benchmark.png"), fullPage: true });
  } finally {
    await browser.close();
    await server.close();
  }
});
