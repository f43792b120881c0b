// Checks every code example of the README and the docs site: each `ts`/`js`
// fence is type-checked against the built package (pkg/), and the ones marked
// `run=node` or `run=browser` are executed (Node; Vite + headless Chromium).
//
//   node scripts/doc-examples.mjs [page.md ...]   (default: README.md and docs/)
//
// Code for Node (run=node, or importing `node:` modules, `wiggum-rpc/framing` or `wiggum-rpc/redis`)
// is checked with the package's Node types, as TypeScript's own Node set-up
// has them (`lib: ["esnext"]`, `types: ["node"]`, no DOM). A fence's info
// string is `lang [meta...]`:
//   no-check            not checked (a deliberate sketch)
//   file=NAME           a companion file of the page's runnable example (a
//                       worker, a frame's document, a service worker: one
//                       the page registers by "/NAME" is built as an entry of
//                       its own, served at /NAME)
//   run=node|browser|page  executed (Node; Vite + Chromium; Chromium with no
//                       bundler, an import map naming the package); passes if
//                       its output contains expect="TEXT"
//   browsers="chromium firefox"  run=browser: the browsers it runs in
//                       (default Chromium)
//   timeout=MS          how long a run may take before it fails (20 s)
//   no-run="REASON"     a whole program that is not run, and why
// An HTML comment `<!-- prelude: ... -->` on the line before a fence is
// prepended to it for checking only (stand-ins for the app's own names).
//
// What a reader copies must run as printed, so besides type-checking:
// - a whole program (it imports the package and needs no prelude) is run,
//   or says why not (no-run);
// - a fence that is JavaScript by its name (file=NAME.js, or a first line
//   `// NAME.js`) is a `js` fence and parses as JavaScript: no TypeScript
//   syntax in a file a browser loads as it is;
// - a `file=` companion belongs to a page with an example that runs.
import { execFile } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { promisify } from "node:util";
import { transform, transformSync } from "esbuild";

const run = promisify(execFile);
const root = new URL("..", import.meta.url).pathname;
const work = join(root, "target/doc-examples");
const RUN_TIMEOUT_MS = 20_000;

/** Every Markdown page the examples live in: the README and the site's sources (not its generated API, nor public/, copied as it is). */
export function pages() {
  const found = [join(root, "README.md")];
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory() && !entry.name.startsWith(".") && entry.name !== "api" && entry.name !== "public") walk(path);
      else if (entry.name.endsWith(".md")) found.push(path);
    }
  };
  walk(join(root, "docs"));
  return found;
}

/** The fences of one page, with their meta and prelude. */
export function fences(page) {
  const lines = readFileSync(page, "utf8").split("\n");
  const found = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)(`{3,})(\S*)\s*(.*)$/.exec(lines[i]);
    if (!open) continue;
    const [, indent, ticks, lang, info] = open;
    const body = [];
    let j = i + 1;
    while (j < lines.length && !new RegExp(`^\\s*${ticks}\\s*$`).test(lines[j])) body.push(lines[j++].slice(indent.length));
    const meta = Object.fromEntries([...info.matchAll(/([\w-]+)(?:=(?:"([^"]*)"|(\S+)))?/g)].map((m) => [m[1], m[2] ?? m[3] ?? true]));
    const prelude = /<!--\s*prelude:([\s\S]*?)-->/.exec(lines[i - 1] ?? "")?.[1] ?? "";
    found.push({ page, line: i + 1, lang, meta, prelude, code: body.join("\n") });
    i = j;
  }
  return found;
}

const slug = (page) => relative(root, page).replace(/\.md$/, "").replace(/[^\w]+/g, "-");

/** The file a fence is, by its `file=` or its first line (`// sw.js, a module service worker`). */
const fileName = (fence) => fence.meta.file ?? /^\/\/\s*([\w.-]+\.[cm]?[jt]sx?)\b/.exec(fence.code)?.[1];

/**
 * What a reader cannot run as printed, though it type-checks: a whole
 * program that is neither run nor said why not; JavaScript by its name that
 * is not JavaScript; a companion with no example to go with.
 */
function unrunnable(page) {
  const all = fences(page);
  const failures = [];
  const ran = all.some((fence) => fence.meta.run);
  for (const fence of all) {
    if (!["ts", "js"].includes(fence.lang) || fence.meta["no-check"]) continue;
    const where = `${relative(root, page)}:${fence.line}`;
    const name = fileName(fence);
    if (name && /\.[cm]?js$/.test(name)) {
      if (fence.lang !== "js") failures.push(`${where}: ${name} is JavaScript, so its fence must be \`js\` (a browser loads it as printed)`);
      try {
        transformSync(fence.code, { loader: "js", format: "esm", logLevel: "silent" });
      } catch (error) {
        failures.push(`${where}: ${name} does not parse as JavaScript: ${error.errors?.[0]?.text ?? error.message}`);
      }
    }
    if (fence.meta.file && !ran) failures.push(`${where}: file=${fence.meta.file} is a companion of no example that runs on this page`);
    const whole = /from "wiggum-rpc/.test(fence.code) && !fence.prelude.trim();
    if (whole && !fence.meta.run && !fence.meta.file && typeof fence.meta["no-run"] !== "string") {
      failures.push(`${where}: a whole program that is not run: run it (run=node|browser|page expect="…") or say why it cannot be (no-run="…")`);
    }
  }
  return failures;
}

/** Writes a page's checked fences into their own folder; returns what to check and run. */
function layOut(page) {
  const dir = join(work, "pages", slug(page));
  mkdirSync(dir, { recursive: true });
  const checked = [];
  const runs = [];
  fences(page).forEach((fence, n) => {
    if (!["ts", "js", "html"].includes(fence.lang) || fence.meta["no-check"]) return;
    if (fence.lang === "html" && !fence.meta.file) return;
    const name = fence.meta.file ?? `example-${n + 1}.${fence.lang}`;
    const where = `${relative(root, page)}:${fence.line}`;
    const text = fence.lang === "html" ? fence.code : `${fence.prelude}\n${fence.code}\nexport {};\n`;
    writeFileSync(join(dir, name), text);
    // Code for Node is checked with the package's Node types (its `node` export condition).
    const node = fence.meta.run === "node" || /from "(node:|wiggum-rpc\/framing|wiggum-rpc\/redis)/.test(fence.code);
    if (fence.lang !== "html") checked.push({ file: join(dir, name), where, lang: fence.lang, node });
    if (fence.meta.run) {
      if (typeof fence.meta.expect !== "string") throw new Error(`${where}: run= needs expect="…"`);
      const browsers = String(fence.meta.browsers ?? "chromium").split(/\s+/);
      for (const browser of browsers) if (!["chromium", "firefox"].includes(browser)) throw new Error(`${where}: browsers= names ${browser}`);
      const timeout = fence.meta.timeout === undefined ? RUN_TIMEOUT_MS : Number(fence.meta.timeout);
      if (!(timeout > 0)) throw new Error(`${where}: timeout=${fence.meta.timeout} is not a number of ms`);
      runs.push({ dir, name, where, how: fence.meta.run, expect: fence.meta.expect, browsers, timeout, code: fence.code });
    }
  });
  return { checked, runs };
}

/** The built package as an app installs it, beside the examples. */
function installPackage() {
  const into = join(work, "node_modules/wiggum-rpc");
  if (!existsSync(join(root, "pkg/package.json"))) throw new Error("pkg/ is missing: run `bash scripts/build.sh bundler` first");
  rmSync(into, { recursive: true, force: true });
  cpSync(join(root, "pkg"), into, { recursive: true });
}

// Node code as TypeScript's own Node set-up checks it (`tsc --init`: "For
// nodejs: lib esnext, types node"): Node's module resolution, no DOM.
// Node code is checked on the newest @types/node and on the oldest a Node
// 20 program installs (`typeRoots`: a directory whose only `node` is that one).
const tsconfig = (files, strict, node, typeRoots = join(root, "node_modules/@types")) => ({
  compilerOptions: {
    ...(node
      ? { target: "esnext", module: "nodenext", moduleResolution: "nodenext", lib: ["esnext"] }
      : { target: "es2022", module: "esnext", moduleResolution: "bundler", lib: ["es2022", "dom", "dom.iterable"] }),
    types: ["node"],
    typeRoots: [typeRoots],
    strict,
    allowJs: true,
    checkJs: true,
    noEmit: true,
    skipLibCheck: true,
    allowImportingTsExtensions: true,
    // A page without a bundler names the installed package by its URL.
    paths: { "/node_modules/*": ["./node_modules/*"] },
  },
  files,
});

/** Type-checks the fences; returns tsc's complaints, each naming the page and line it came from. */
async function typeCheck(checked) {
  const failures = [];
  const node20 = join(work, "types-node-20");
  rmSync(node20, { recursive: true, force: true });
  mkdirSync(node20, { recursive: true });
  // Kept outside @types (types-node-20), where TypeScript would load it beside the newest in every program.
  symlinkSync(join(root, "node_modules/types-node-20"), join(node20, "node"));
  for (const [lang, strict, node, typeRoots] of [
    ["ts", true, false], ["ts", true, true], ["ts", true, true, node20], ["js", false, false], ["js", false, true], ["js", false, true, node20],
  ]) {
    const group = checked.filter((c) => c.lang === lang && c.node === node);
    if (!group.length) continue;
    const config = join(work, `tsconfig.${lang}${node ? ".node" : ""}${typeRoots ? ".node-20" : ""}.json`);
    writeFileSync(config, JSON.stringify(tsconfig(group.map((c) => c.file), strict, node, typeRoots), null, 2));
    try {
      await run(join(root, "node_modules/.bin/tsc"), ["-p", config, "--pretty", "false"], { cwd: work, maxBuffer: 1 << 24 });
    } catch (error) {
      for (const line of String(error.stdout).split("\n").filter(Boolean)) {
        const at = group.find((c) => line.startsWith(relative(work, c.file)) || line.startsWith(c.file));
        failures.push(at ? `${at.where} (${relative(work, at.file)}): ${line}` : line);
      }
      if (!failures.length) failures.push(String(error));
    }
  }
  return failures;
}

/** Runs one Node example; resolves with a complaint or null. */
async function runNode({ dir, name, where, expect, timeout }) {
  const source = readFileSync(join(dir, name), "utf8");
  const { code } = await transform(source, { loader: name.endsWith(".ts") ? "ts" : "js", format: "esm", target: "node20" });
  const file = join(dir, name.replace(/\.[jt]s$/, ".run.mjs"));
  writeFileSync(file, code);
  try {
    const { stdout } = await run(process.execPath, [file], { cwd: dir, timeout });
    return stdout.includes(expect) ? null : `${where}: printed ${JSON.stringify(stdout.slice(0, 300))}, not "${expect}"`;
  } catch (error) {
    return `${where}: ${error.killed ? `did not finish in ${timeout} ms` : "failed"}\n${error.stderr ?? error}`;
  }
}

// Put in each page before its module: what the page prints and throws, kept
// where a browser driven over WebDriver (Firefox) can read it.
const CAPTURE = `<script>window.__said = []; window.__thrown = null;
for (const level of ["log", "info", "warn", "error"]) { const original = console[level]; console[level] = (...args) => { window.__said.push(args.map(String).join(" ")); original.apply(console, args); }; }
addEventListener("error", (event) => { window.__thrown ??= String(event.error?.stack ?? event.message); });
addEventListener("unhandledrejection", (event) => { window.__thrown ??= String(event.reason?.stack ?? event.reason); });</script>`;

const SW_ENTRY = "__service_worker__";
/** The service workers a page registers by path (`register("/sw.js"`): each built as an entry of its own, at that path. */
const registered = (code) => [...code.matchAll(/serviceWorker\.register\(\s*["']\/([\w.-]+)["']/g)].map((m) => m[1]);

/**
 * Builds every browser example with Vite (one build per page) and runs each
 * in the browsers it names (Chromium unless `browsers=`); resolves with complaints.
 */
async function runBrowser(runs) {
  if (!runs.length) return [];
  const { build } = await import("vite");
  const { launchChromium } = await import("../tests/js/browser.mjs");
  const { startServer } = await import("./serve.mjs");
  const failures = [];
  const byDir = new Map();
  for (const r of runs) byDir.set(r.dir, [...(byDir.get(r.dir) ?? []), r]);
  const browser = await launchChromium();
  let firefox;
  try {
    for (const [dir, group] of byDir) {
      const input = {};
      for (const r of group) {
        const html = r.name.replace(/\.[jt]s$/, ".page.html");
        writeFileSync(join(dir, html), `<!doctype html><meta charset="utf-8">${CAPTURE}<script type="module" src="./${r.name}"></script>\n`);
        input[html] = join(dir, html);
        r.html = html;
      }
      // An html companion (a frame's document) is a page of the build too.
      for (const file of readdirSync(dir)) {
        if (file.endsWith(".html") && !file.endsWith(".page.html")) input[file] = join(dir, file);
      }
      // A service worker is an entry of its own, served at the path registered.
      const workers = new Set(group.flatMap((r) => registered(r.code)));
      for (const file of workers) {
        if (!existsSync(join(dir, file))) failures.push(`${group[0].where}: registers /${file}, which no file=${file} on the page gives`);
        else input[`${SW_ENTRY}${file}`] = join(dir, file);
      }
      const outDir = join(dir, "dist");
      try {
        await build({
          root: dir,
          configFile: false,
          logLevel: "error",
          worker: { format: "es" },
          build: {
            outDir,
            emptyOutDir: true,
            rollupOptions: {
              input,
              output: { entryFileNames: (chunk) => (chunk.name.startsWith(SW_ENTRY) ? chunk.name.slice(SW_ENTRY.length) : "assets/[name]-[hash].js") },
            },
          },
        });
      } catch (error) {
        failures.push(`${group[0].where}: the Vite build failed: ${error.message}`);
        continue;
      }
      const server = await startServer({ mounts: [["/", outDir]] });
      try {
        for (const r of group) {
          if (r.browsers.includes("chromium")) failures.push(await runPage(browser, `${server.url}${r.html}`, r));
          if (r.browsers.includes("firefox")) {
            firefox ??= await (await import("../tests/js/firefox.mjs")).launchFirefox();
            failures.push(await runFirefox(firefox, `${server.url}${r.html}`, r));
          }
        }
      } finally {
        await server.close();
      }
    }
  } finally {
    await browser.close();
    await firefox?.close();
  }
  return failures.filter(Boolean);
}

/** Runs one built page in Firefox, reading what it printed through the page's capture; resolves with a complaint or null. */
async function runFirefox(firefox, url, { where, expect, timeout }) {
  const tab = await firefox.open(url);
  const deadline = Date.now() + timeout;
  let seen = { said: [], thrown: null };
  while (Date.now() < deadline) {
    seen = await firefox.evaluate(tab, async () => ({ said: window.__said ?? [], thrown: window.__thrown ?? null }));
    if (seen.thrown || seen.said.some((text) => text.includes(expect))) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  await firefox.open("about:blank", tab);
  if (seen.thrown) return `${where}: threw in Firefox: ${seen.thrown}`;
  if (!seen.said.some((text) => text.includes(expect))) {
    return `${where}: Firefox: printed ${JSON.stringify(seen.said.join("\n").slice(0, 300))}, not "${expect}" (in ${timeout} ms)`;
  }
  return null;
}

/**
 * Runs the `run=page` examples as a browser without a bundler gets them: each
 * file with its types stripped and nothing else changed, the installed
 * package served at /node_modules/wiggum-rpc/ and named by an import map.
 */
async function runUnbundled(runs) {
  if (!runs.length) return [];
  const { launchChromium } = await import("../tests/js/browser.mjs");
  const { startServer } = await import("./serve.mjs");
  const failures = [];
  const browser = await launchChromium();
  // As the docs have a page write it: the entry and each subpath entry by its file.
  const { SUBPATHS } = await import("./subpath-entries.mjs");
  const importMap = JSON.stringify({
    imports: {
      "wiggum-rpc/web": "/node_modules/wiggum-rpc/web/wiggum_rpc.js",
      ...Object.fromEntries(SUBPATHS.map((name) => [`wiggum-rpc/web/${name}`, `/node_modules/wiggum-rpc/web/${name}.js`])),
    },
  });
  try {
    for (const r of runs) {
      const served = join(r.dir, "served");
      rmSync(served, { recursive: true, force: true });
      mkdirSync(served);
      for (const file of readdirSync(r.dir).filter((f) => /\.[jt]s$/.test(f))) {
        const { code } = await transform(readFileSync(join(r.dir, file), "utf8"), { loader: file.endsWith(".ts") ? "ts" : "js", format: "esm" });
        writeFileSync(join(served, file), code);
      }
      r.html = r.name.replace(/\.[jt]s$/, ".page.html");
      writeFileSync(join(served, r.html), `<!doctype html><meta charset="utf-8"><script type="importmap">${importMap}</script><script type="module" src="./${r.name}"></script>\n`);
      const server = await startServer({ mounts: [["/node_modules/", join(work, "node_modules")], ["/", served]] });
      try {
        failures.push(await runPage(browser, `${server.url}${r.html}`, r));
      } finally {
        await server.close();
      }
    }
  } finally {
    await browser.close();
  }
  return failures.filter(Boolean);
}

async function runPage(browser, url, { where, expect, timeout = RUN_TIMEOUT_MS }) {
  const page = await browser.newPage();
  const said = [];
  let thrown = null;
  page.on("console", (message) => said.push(message.text()));
  page.on("pageerror", (error) => (thrown ??= error));
  try {
    await page.goto(url);
    const deadline = Date.now() + timeout;
    while (!thrown && !said.some((text) => text.includes(expect)) && Date.now() < deadline) await page.waitForTimeout(50);
    if (thrown) return `${where}: threw ${thrown.stack || thrown.message || thrown}`;
    if (!said.some((text) => text.includes(expect))) return `${where}: printed ${JSON.stringify(said.join("\n").slice(0, 300))}, not "${expect}" (in ${timeout} ms)`;
    return null;
  } finally {
    await page.close();
  }
}

/** Checks the examples of `list`; resolves with { checked, ran, failures }. */
export async function checkExamples(list = pages()) {
  rmSync(join(work, "pages"), { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  // ES modules, as the examples are written (Node's resolution reads this).
  writeFileSync(join(work, "package.json"), `${JSON.stringify({ private: true, type: "module" })}\n`);
  installPackage();
  const laid = list.map(layOut);
  const checked = laid.flatMap((l) => l.checked);
  const runs = laid.flatMap((l) => l.runs);
  const failures = list.flatMap(unrunnable);
  failures.push(...(await typeCheck(checked)));
  for (const r of runs.filter((r) => r.how === "node")) failures.push(await runNode(r));
  failures.push(...(await runBrowser(runs.filter((r) => r.how === "browser"))));
  failures.push(...(await runUnbundled(runs.filter((r) => r.how === "page"))));
  const unknown = runs.filter((r) => !["node", "browser", "page"].includes(r.how));
  for (const r of unknown) failures.push(`${r.where}: run=${r.how} is none of node, browser, page`);
  return { checked: checked.length, ran: runs.length, failures: failures.filter(Boolean) };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const list = process.argv.slice(2).map((p) => join(process.cwd(), p));
  const { checked, ran, failures } = await checkExamples(list.length ? list : pages());
  for (const failure of failures) console.error(`FAIL ${failure}`);
  console.log(`examples: ${checked} type-checked, ${ran} run, ${failures.length} failed`);
  process.exitCode = failures.length ? 1 : 0;
}
