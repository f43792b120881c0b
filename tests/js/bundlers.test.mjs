// The npm package through the bundlers people use, as their docs have a
// wasm package's user set them up (tests/bundler-app/*.config.js: one or two
// settings each, named in the README): `npm pack` of pkg/, installed into a
// throwaway app, built (or served by Vite's dev server), and run in headless
// Chromium, where a page calls a worker it started: a sum, an RPCError with
// its code, a transferred Uint8Array. Then two copies of the package built
// by different bundlers: a page and its worker, and two bundles on one page.
// Last, a subpath entry: `wiggum-rpc/websocket` through both bundlers to a
// Node server, and the pages that do not import it do not carry it. And
// `wiggum-rpc/web` through Vite, the page handing its worker its module.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { build as viteBuild, createServer as viteServer } from "vite";
import webpack from "webpack";
import { startServer } from "../../scripts/serve.mjs";
import { launchChromium } from "./browser.mjs";
import { serveMulOverWebSocket } from "./installed.mjs";

const root = resolve(new URL("../..", import.meta.url).pathname);
const expected = { sum: 5, buildFailed: true, reversed: [3, 2, 1] };
let app;
let browser;

before(async () => {
  app = mkdtempSync(join(tmpdir(), "wiggum-bundler-app-"));
  cpSync(join(root, "tests/bundler-app"), app, { recursive: true });
  writeFileSync(join(app, "package.json"), JSON.stringify({ name: "bundler-app", private: true, type: "module" }));
  const packed = JSON.parse(execFileSync("npm", ["pack", "--json", "--pack-destination", app], { cwd: join(root, "pkg") }));
  execFileSync("npm", ["install", "--no-audit", "--no-fund", join(app, packed[0].filename), join(root, "node_modules/ws")], {
    cwd: app,
    stdio: "pipe",
  });
  browser = await launchChromium();
});

after(async () => {
  await browser?.close();
  rmSync(app, { recursive: true, force: true });
});

/** Opens `url` and returns what the page put in `window.result`; page errors fail the test. */
async function resultAt(url) {
  const page = await browser.newPage();
  const problems = [];
  page.on("pageerror", (error) => problems.push(String(error)));
  page.on("console", (message) => message.type() === "error" && problems.push(message.text()));
  try {
    await page.goto(url);
    await page.waitForFunction(() => window.result !== undefined, null, { timeout: 30_000 }).catch((error) => {
      throw new Error(`${error.message}; page problems: ${problems.join(" | ") || "none"}`);
    });
    assert.deepEqual(problems, []);
    return await page.evaluate(() => window.result);
  } finally {
    await page.close();
  }
}

/** Builds with the app's webpack.config.js and `overrides`; fails on a build error. */
async function webpackBuild(overrides) {
  const { default: config } = await import(join(app, "webpack.config.js"));
  const stats = await new Promise((done, fail) =>
    webpack({ ...config, context: app, ...overrides }, (error, result) => (error ? fail(error) : done(result))),
  );
  assert.equal(stats.hasErrors(), false, stats.toString({ colors: false, all: false, errors: true }));
}

/** Builds `html` of the app with Vite into `outDir`. */
async function viteBuildOf(html, outDir) {
  await viteBuild({ root: app, logLevel: "warn", build: { outDir, emptyOutDir: true, rollupOptions: { input: join(app, html) } } });
}

async function served(dir, check) {
  const server = await startServer({ mounts: [["/", dir]] });
  try {
    await check(server.url);
  } finally {
    await server.close();
  }
}

test("Vite 8: `vite build`, served, calls a worker in Chromium", async () => {
  const outDir = join(app, "dist-vite");
  await viteBuildOf("index.html", outDir);
  await served(outDir, async (url) => assert.deepEqual(await resultAt(url), expected));
});

test("Vite 8: `wiggum-rpc/web` in a page and its worker, the page's compiled module handed over (the worker fetches no .wasm)", async () => {
  const outDir = join(app, "dist-vite-shared");
  await viteBuildOf("shared.html", outDir);
  await served(outDir, async (url) =>
    assert.deepEqual(await resultAt(`${url}shared.html`), { module: true, sum: 5, wasmFetched: 0 }));
});

test("Vite 8: the `vite` dev server, calls a worker in Chromium", async () => {
  const server = await viteServer({ root: app, logLevel: "warn", server: { port: 0, host: "127.0.0.1" } });
  await server.listen();
  try {
    assert.deepEqual(await resultAt(server.resolvedUrls.local[0]), expected);
  } finally {
    await server.close();
  }
});

test("webpack 5: a production build, served, calls a worker in Chromium", async () => {
  const outDir = join(app, "dist-webpack");
  await webpackBuild({ output: { path: outDir, clean: true } });
  writeFileSync(join(outDir, "index.html"), '<!doctype html><meta charset="utf-8"><link rel="icon" href="data:,"><script src="main.js"></script>\n');
  await served(outDir, async (url) => assert.deepEqual(await resultAt(url), expected));
});

test("a page built by Vite calls a worker built by webpack: two copies of the package meet on the wire", async () => {
  const page = join(app, "dist-cross-page");
  const worker = join(app, "dist-cross-worker");
  await viteBuildOf("cross.html", page);
  await webpackBuild({ entry: "./src/worker.js", target: "webworker", output: { path: worker, filename: "worker.js", clean: true } });
  const server = await startServer({ mounts: [["/other/", worker], ["/", page]] });
  try {
    assert.deepEqual(await resultAt(`${server.url}cross.html`), expected);
  } finally {
    await server.close();
  }
});

test("two bundles on one page (Vite's and webpack's), each with its own wasm instance, call each other", async () => {
  const page = join(app, "dist-two-page");
  const second = join(app, "dist-two-second");
  await viteBuildOf("two.html", page);
  await webpackBuild({ entry: "./src/second.js", output: { path: second, filename: "second.js", clean: true } });
  const server = await startServer({ mounts: [["/other/", second], ["/", page]] });
  try {
    assert.deepEqual(await resultAt(`${server.url}two.html`), { sum: 5, who: "second bundle" });
  } finally {
    await server.close();
  }
});

/** The JS text of a build's output, all files. */
function builtText(dir) {
  let text = "";
  for (const entry of readdirSync(dir, { recursive: true })) {
    if (/\.(m?js|cjs)$/.test(entry)) text += readFileSync(join(dir, entry), "utf8");
  }
  return text;
}

test("wiggum-rpc/websocket and wiggum-rpc/remote through Vite and webpack: a page calls a Node server; pages without them do not carry them", async () => {
  const wss = await serveMulOverWebSocket(app);
  const query = `?ws=${wss.url}`;
  try {
    const viteOut = join(app, "dist-socket-vite");
    await viteBuildOf("socket.html", viteOut);
    await served(viteOut, async (url) => assert.deepEqual(await resultAt(`${url}socket.html${query}`), { product: 42, missing: true }));
    const webpackOut = join(app, "dist-socket-webpack");
    await webpackBuild({ entry: "./src/socket.js", output: { path: webpackOut, clean: true } });
    writeFileSync(join(webpackOut, "index.html"), '<!doctype html><meta charset="utf-8"><link rel="icon" href="data:,"><script src="main.js"></script>\n');
    await served(webpackOut, async (url) => assert.deepEqual(await resultAt(`${url}${query}`), { product: 42, missing: true }));
    // Texts only the WebSocket transport and `expose()` have: in these bundles, in none of the earlier tests' bundles.
    for (const marker of ["binary frame refused", "expose: instance must be an object"]) {
      for (const dir of [viteOut, webpackOut]) assert.ok(builtText(dir).includes(marker), `${dir} has "${marker}"`);
      for (const dir of ["dist-vite", "dist-webpack", "dist-cross-page", "dist-two-page"]) {
        assert.equal(builtText(join(app, dir)).includes(marker), false, `${dir} does not have "${marker}"`);
      }
    }
  } finally {
    wss.close();
  }
});
