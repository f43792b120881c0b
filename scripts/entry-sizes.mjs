// What a page pays for each entry of the npm package (pkg/), in one measure
// used everywhere a size is stated: the size budget the tests hold
// (tests/size-budget.json, tests/js/size-budget.test.mjs), the README's
// entry table, and the benchmark's size tables. With a bundler: one esbuild
// bundle, minified, gzip -9, with the JS modules the .wasm imports followed
// as a bundler follows them, and the .wasm counted apart (gzip -9); a
// subpath's row is what it adds to the root. Without one (`wiggum-rpc/web`):
// the files as served. A size is deterministic for a given toolchain.
//
//   node scripts/entry-sizes.mjs            the table (after `bash scripts/build.sh bundler`)
//   node scripts/entry-sizes.mjs --readme   writes the README's entry table's sizes
//   node scripts/entry-sizes.mjs --budget   writes tests/size-budget.json from this build (a size that went down)
import { existsSync, readFileSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { build } from "esbuild";
import { SUBPATHS } from "./subpath-entries.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
export const BUDGET_FILE = join(root, "tests/size-budget.json");
const gzip = (bytes) => gzipSync(bytes, { level: 9 }).length;

/**
 * gzip -9 sizes of the .wasm and the JS under `dir`: the files a page loads
 * without a bundler (`skip`: what it leaves out, tested on each path).
 */
export function servedSizes(dir, skip = () => false) {
  const files = [];
  const walk = (d) => {
    for (const name of readdirSync(d)) {
      const path = join(d, name);
      if (skip(path)) continue;
      if (statSync(path).isDirectory()) walk(path);
      else if (/\.(js|wasm)$/.test(name)) files.push(path);
    }
  };
  walk(dir);
  const total = { raw: 0, gzip: 0 };
  const wasm = { raw: 0, gzip: 0 };
  for (const path of files) {
    const bytes = readFileSync(path);
    total.raw += bytes.length;
    total.gzip += gzip(bytes);
    if (path.endsWith(".wasm")) Object.assign(wasm, { raw: bytes.length, gzip: gzip(bytes) });
  }
  return { wasm, glue: { raw: total.raw - wasm.raw, gzip: total.gzip - wasm.gzip }, total };
}

/** The subpath entries' files beside a build's glue: not part of the root entry. */
export const subpathFile = (path) =>
  [...SUBPATHS, "framing", "redis"].some((name) => [".js", ".d.ts", ".js.map"].some((end) => path.endsWith(`/${name}${end}`)));

/**
 * The gzip size of one minified esbuild bundle of `source` (a page's
 * imports, resolved from the repository's root): its JS, with the JS
 * modules a .wasm imports followed as a bundler follows them (the .wasm
 * itself is counted apart).
 */
export async function bundledSize(source) {
  const wasmImports = {
    name: "wasm-imports",
    setup(builder) {
      builder.onResolve({ filter: /\.wasm$/ }, (args) => ({ path: join(args.resolveDir, args.path), namespace: "wasm" }));
      builder.onLoad({ filter: /.*/, namespace: "wasm" }, (args) => {
        const module = new WebAssembly.Module(readFileSync(args.path));
        const sources = [...new Set(WebAssembly.Module.imports(module).map((i) => i.module))];
        const names = WebAssembly.Module.exports(module).map((e) => e.name);
        const contents = [
          ...sources.map((from, i) => `import * as m${i} from ${JSON.stringify(from)}; globalThis.m${i} = m${i};`),
          ...names.map((name) => `export const ${name} = 0;`),
        ].join("\n");
        return { contents, resolveDir: dirname(args.path), loader: "js" };
      });
    },
  };
  const result = await build({
    stdin: { contents: source, resolveDir: root, loader: "js" },
    bundle: true,
    minify: true,
    format: "esm",
    write: false,
    plugins: [wasmImports],
    logLevel: "warning",
  });
  return gzip(result.outputFiles[0].contents);
}

/**
 * Each entry of the npm package in `pkg` (default pkg/): `{ entry, wasm, js }`
 * in bytes, gzip -9; `entry` is how the README names it (`wiggum-rpc`,
 * `wiggum-rpc/hub`, `wiggum-rpc/web`, `wiggum-rpc/web/hub`, …). Empty when
 * the package has not been built.
 */
export async function entrySizes(pkg = join(root, "pkg")) {
  if (!existsSync(join(pkg, "package.json"))) return [];
  const entries = await flavourSizes(pkg, "wiggum-rpc");
  // The flavour whose module takes references (package-entries.mjs).
  if (existsSync(join(pkg, "references"))) entries.push(...(await flavourSizes(join(pkg, "references"), "wiggum-rpc/references")));
  return entries;
}

/** The rows of one flavour of the package: its root in `dir`, named `name`. */
async function flavourSizes(dir, name) {
  const wasm = gzip(readFileSync(join(dir, "wiggum_rpc_bg.wasm")));
  const rootPage = `import * as lib from ${JSON.stringify(join(dir, "wiggum_rpc.js"))}; globalThis.lib = lib;`;
  const rootJs = await bundledSize(rootPage);
  const entries = [{ entry: name, wasm, js: rootJs }];
  for (const subpath of SUBPATHS) {
    const withEntry = await bundledSize(`${rootPage} import * as entry from ${JSON.stringify(join(dir, `${subpath}.js`))}; globalThis.entry = entry;`);
    entries.push({ entry: `${name}/${subpath}`, wasm: 0, js: withEntry - rootJs });
  }
  const web = join(dir, "web");
  if (existsSync(web)) {
    const served = servedSizes(web, (path) => subpathFile(path) || /\/node\.[cm]?js$/.test(path));
    entries.push({ entry: `${name}/web`, wasm: served.wasm.gzip, js: served.glue.gzip });
    for (const subpath of SUBPATHS) entries.push({ entry: `${name}/web/${subpath}`, wasm: 0, js: gzip(readFileSync(join(web, `${subpath}.js`))) });
  }
  return entries;
}

export const kb = (bytes) => `${(bytes / 1024).toFixed(1)} KB`;

/** The README's "a page pays" cell for an entry: the root's whole, a subpath's addition. */
const paid = ({ wasm, js }) => (wasm !== 0 ? kb(wasm + js) : `+ ${kb(wasm + js)}`);

/** The README with its entry table's sizes from `entries` (rows it has, matched by their first cell). */
export function readmeWithSizes(readme, entries) {
  const byName = new Map(entries.map((row) => [row.entry, row]));
  return readme.replace(/^\| `(wiggum-rpc[^`]*)` \|(.*)\| ([^|]*) \|$/gm, (line, name, middle, cell) => {
    const row = byName.get(name);
    return row === undefined || !/KB/.test(cell) ? line : `| \`${name}\` |${middle}| ${paid(row)} |`;
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const entries = await entrySizes();
  if (entries.length === 0) {
    console.error("entry-sizes: pkg/ is not built (bash scripts/build.sh bundler)");
    process.exit(1);
  }
  console.log("| entry | .wasm | JS | total (gzip) |\n| --- | ---: | ---: | ---: |");
  for (const row of entries) console.log(`| \`${row.entry}\` | ${kb(row.wasm)} | ${kb(row.js)} | ${kb(row.wasm + row.js)} |`);
  if (process.argv.includes("--readme")) {
    const path = join(root, "README.md");
    writeFileSync(path, readmeWithSizes(readFileSync(path, "utf8"), entries));
    console.log("README.md: the entry table's sizes written");
  }
  if (process.argv.includes("--budget")) {
    const budget = Object.fromEntries(entries.map(({ entry, wasm, js }) => [entry, wasm + js]));
    writeFileSync(BUDGET_FILE, `${JSON.stringify(budget, null, 2)}\n`);
    console.log(`${BUDGET_FILE}: written from this build`);
  }
}
