// What the package's size needs after `wasm-pack build` (web and bundler
// targets; scripts/build.sh runs it):
//
// 1. Short names between the module and its JS glue: each import the module
//    takes from its glue (`__wbg_addEventListener_ba3aa1fef97672f1`) and each
//    export but `memory` (`jsonrpcclient_request`) gets a name of a few
//    characters, in the `.wasm`, the glue and the `.d.ts` files alike. The
//    hashed names were most of the import section, and gzip cannot fold
//    them. The `producers` and `target_features` custom sections (build
//    metadata no runtime reads) are dropped too.
// 2. The JS minified, identifiers included, with a source map beside each
//    file (in the package's `files`) so that devtools show the readable
//    glue; the exported classes (the snippets' too: `RPCError`) are named
//    explicitly first, so `Peer.name` and the console still say `Peer`.
// 3. In the web target (no bundler), the glue and its snippets in one file:
//    a page or worker that loads the files as served then fetches one
//    module, not one per snippet in turn (each a request, from the HTTP
//    cache or not, before the .wasm is even asked for).
//
//   node scripts/slim-package.mjs <package dir>
//
// The web and bundler targets' glue differ (an imports object, exported
// functions); the rewrite goes by what it finds, so it serves both.
//
// Every rewrite is checked: an old name must occur exactly where wasm-bindgen
// puts it, and after the rewrite the glue may reference no export the module
// does not have. Anything unexpected stops the build.
import { readFileSync, writeFileSync, existsSync, readdirSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { buildSync } from "esbuild";

const [dir] = process.argv.slice(2);
if (!dir) {
  console.error("usage: node scripts/slim-package.mjs <package dir>");
  process.exit(2);
}
const GLUE_MODULE = "./wiggum_rpc_bg.js";
const DROPPED_SECTIONS = new Set(["producers", "target_features"]);
const KEPT_EXPORTS = new Set([
  "memory", "wiggumOpen", "wiggumRequest", "wiggumRequestWith", "wiggumNotify", "wiggumReceive", "wiggumCall", "wiggumAnswer", "wiggumDone", "wiggumSignal",
]);
const wasmPath = join(dir, "wiggum_rpc_bg.wasm");
const jsPaths = [join(dir, "wiggum_rpc.js"), join(dir, "wiggum_rpc_bg.js")].filter(existsSync);

function fail(message) {
  console.error(`slim-package: ${message}`);
  process.exit(1);
}

// ---- the module ------------------------------------------------------------

const bytes = readFileSync(wasmPath);
let at = 8;
const uleb = () => {
  let value = 0;
  let shift = 0;
  let byte;
  do {
    byte = bytes[at++];
    value += (byte & 0x7f) * 2 ** shift;
    shift += 7;
  } while (byte & 0x80);
  return value;
};
const name = () => {
  const length = uleb();
  const text = bytes.subarray(at, at + length).toString("utf8");
  at += length;
  return text;
};
const encodeUleb = (value) => {
  const out = [];
  do {
    let byte = value % 128;
    value = Math.floor(value / 128);
    if (value > 0) byte |= 0x80;
    out.push(byte);
  } while (value > 0);
  return Buffer.from(out);
};
const encodeName = (text) => {
  const utf8 = Buffer.from(text, "utf8");
  return Buffer.concat([encodeUleb(utf8.length), utf8]);
};
const limits = () => {
  const flags = bytes[at++];
  uleb();
  if (flags & 1) uleb();
};

// Short names, letters only (bijective base 52): `$`-prefixed for imports
// (in the bundler glue they become function names, and `$` keeps them clear
// of the glue's own identifiers), bare for exports (only ever property
// names); never a reserved word.
const LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
const RESERVED = new Set(["do", "if", "in", "for", "let", "new", "try", "var"]);
function* shortNames(prefix) {
  for (let n = 1; ; n++) {
    let text = "";
    for (let rest = n; rest > 0; rest = Math.floor((rest - 1) / 52)) text = LETTERS[(rest - 1) % 52] + text;
    if (!RESERVED.has(text)) yield prefix + text;
  }
}

const imports = new Map(); // old name → new name, imports from the glue module
const exports = new Map(); // old name → new name
const importNames = shortNames("$");
const exportNames = shortNames("");
const sections = [bytes.subarray(0, 8)];
while (at < bytes.length) {
  const id = bytes[at++];
  const size = uleb();
  const start = at;
  const end = start + size;
  const whole = () => Buffer.concat([Buffer.from([id]), encodeUleb(size), bytes.subarray(start, end)]);
  if (id === 0) {
    if (!DROPPED_SECTIONS.has(name())) sections.push(whole());
  } else if (id === 2) {
    const count = uleb();
    const parts = [encodeUleb(count)];
    for (let i = 0; i < count; i++) {
      const module = name();
      const field = name();
      const descStart = at;
      const kind = bytes[at++];
      if (kind === 0) uleb();
      else if (kind === 1) (at++, limits());
      else if (kind === 2) limits();
      else if (kind === 3) at += 2;
      else if (kind === 4) (at++, uleb());
      else fail(`import ${module}.${field}: unknown kind ${kind}`);
      let renamed = field;
      if (module === GLUE_MODULE) {
        if (!imports.has(field)) imports.set(field, importNames.next().value);
        renamed = imports.get(field);
      }
      parts.push(encodeName(module), encodeName(renamed), bytes.subarray(descStart, at));
    }
    const body = Buffer.concat(parts);
    sections.push(Buffer.concat([Buffer.from([id]), encodeUleb(body.length), body]));
  } else if (id === 7) {
    const count = uleb();
    const parts = [encodeUleb(count)];
    for (let i = 0; i < count; i++) {
      const field = name();
      const descStart = at;
      at++;
      uleb();
      // `memory` keeps its name: `init()` returns the exports, and a page
      // may read `(await init()).memory`. So do the `wiggum*` exports
      // the message reader calls: the module hands it its exports, and it
      // looks them up by name (every endpoint's messages come in through
      // them, called by the glue directly).
      exports.set(field, KEPT_EXPORTS.has(field) ? field : exportNames.next().value);
      parts.push(encodeName(exports.get(field)), bytes.subarray(descStart, at));
    }
    const body = Buffer.concat(parts);
    sections.push(Buffer.concat([Buffer.from([id]), encodeUleb(body.length), body]));
  } else {
    sections.push(whole());
  }
  if ((id === 2 || id === 7) && at !== end) fail(`section ${id} read ${at - start} bytes of ${size}`);
  at = end;
}

// ---- the glue ----------------------------------------------------------------

const escape = (text) => text.replace(/[$]/g, "\\$");
const sources = new Map(jsPaths.map((path) => [path, readFileSync(path, "utf8")]));
for (const fresh of [...imports.values()]) {
  for (const [path, text] of sources) {
    if (new RegExp(`${escape(fresh)}\\b`).test(text)) fail(`${fresh} already occurs in ${path}`);
  }
}
// An import is defined once: a key of the imports object (web) or an
// exported function of the glue module (bundler).
for (const [old, fresh] of imports) {
  const pattern = new RegExp(`\\b${old}\\b`, "g");
  const found = [...sources].map(([path, text]) => [path, (text.match(pattern) ?? []).length]);
  const total = found.reduce((sum, [, n]) => sum + n, 0);
  if (total !== 1) fail(`import ${old} occurs ${total} times in the glue, expected once`);
  for (const [path, n] of found) if (n) sources.set(path, sources.get(path).replace(pattern, fresh));
}
// Exports are read as `wasm.<name>`.
for (const [path, text] of sources) {
  const rewritten = text.replace(/\bwasm\.([A-Za-z_$][\w$]*)/g, (whole, old) => {
    const fresh = exports.get(old);
    if (fresh === undefined) fail(`${path} reads wasm.${old}, which the module does not export`);
    return `wasm.${fresh}`;
  });
  sources.set(path, rewritten);
}
for (const [path, text] of sources) writeFileSync(path, text);
// The exports' types: every line of the module's own .d.ts, and the
// `InitOutput` interface of the glue's.
const renameDeclared = (path, text) =>
  text.replace(/^(export const |    readonly )([\w$]+):/gm, (whole, lead, old) => {
    const fresh = exports.get(old);
    if (fresh === undefined) fail(`${path} declares ${old}, which the module does not export`);
    return `${lead}${fresh}:`;
  });
const dtsPath = join(dir, "wiggum_rpc_bg.wasm.d.ts");
if (existsSync(dtsPath)) writeFileSync(dtsPath, renameDeclared(dtsPath, readFileSync(dtsPath, "utf8")));
const typesPath = join(dir, "wiggum_rpc.d.ts");
if (existsSync(typesPath)) {
  const types = readFileSync(typesPath, "utf8");
  const interfaceStart = types.indexOf("export interface InitOutput {");
  if (interfaceStart >= 0) {
    const interfaceEnd = types.indexOf("\n}", interfaceStart);
    const block = types.slice(interfaceStart, interfaceEnd);
    writeFileSync(typesPath, types.slice(0, interfaceStart) + renameDeclared(typesPath, block) + types.slice(interfaceEnd));
  }
}
writeFileSync(wasmPath, Buffer.concat(sections));

// ---- minified JS -------------------------------------------------------------

// wasm-bindgen's web glue imports the snippets statically and instantiates
// the module itself; the bundler target's module imports them by path.
const gluePath = join(dir, "wiggum_rpc.js");
const web = /^let wasmModule, wasmInstance, wasm;$/m.test(readFileSync(gluePath, "utf8"));
if (web) {
  // wasm-bindgen's imports object names the snippet module once per import
  // (duplicate keys, each a namespace import of the same file): one of each.
  const kept = new Set();
  const dropped = new Set();
  let glue = readFileSync(gluePath, "utf8").replace(/^ *("\.\/snippets\/[^"]+"): (import\d+),\n/gm, (line, key, binding) => {
    if (!kept.has(key)) return (kept.add(key), line);
    dropped.add(binding);
    return "";
  });
  glue = glue.replace(/^import \* as (import\d+) from "[^"]+";?\n/gm, (line, binding) => (dropped.has(binding) ? "" : line));
  for (const binding of dropped) if (new RegExp(`\\b${binding}\\b`).test(glue)) fail(`${binding} is still used after the imports object was deduplicated`);
  writeFileSync(gluePath, glue);
}
const jsFiles = [];
const walk = (folder) => {
  for (const entry of readdirSync(folder)) {
    const path = join(folder, entry);
    if (statSync(path).isDirectory()) walk(path);
    else if (path.endsWith(".js")) jsFiles.push(path);
  }
};
walk(dir);
// In the web target the snippets go into the glue's bundle, not on their own.
const snippets = join(dir, "snippets");
const minified = web ? jsFiles.filter((path) => !path.startsWith(snippets)) : jsFiles;
// Every file's exported classes are named, the snippets' too: in the web
// target they are minified inside the glue's bundle, where `RPCError` would
// otherwise be `O` to `error.constructor.name`. (esbuild's `keepNames` would
// name every function and class, for more bytes.)
for (const path of jsFiles) {
  const text = readFileSync(path, "utf8");
  const classes = [...text.matchAll(/^export class ([A-Za-z_$][\w$]*)/gm)].map((match) => match[1]);
  if (!classes.length) continue;
  const pairs = classes.map((name) => `[${name}, "${name}"]`).join(", ");
  writeFileSync(path, `${text}\nfor (const [c, name] of [${pairs}]) Object.defineProperty(c, "name", { value: name });\n`);
}
for (const path of minified) {
  buildSync({
    entryPoints: [path],
    outfile: path,
    allowOverwrite: true,
    bundle: web && path === gluePath,
    minify: true,
    sourcemap: true,
    format: "esm",
    logLevel: "warning",
  });
}
if (web) rmSync(snippets, { recursive: true, force: true });
const manifestPath = join(dir, "package.json");
const manifest = JSON.parse(readFileSync(manifestPath, "utf8"));
if (web) {
  // The snippets are inside the glue now; the glue keeps the side effects they had.
  manifest.files = manifest.files?.filter((file) => file !== "snippets");
  manifest.sideEffects = ["./wiggum_rpc.js"];
}
if (Array.isArray(manifest.files) && !manifest.files.includes("*.js.map")) manifest.files.push("*.js.map");
writeFileSync(manifestPath, `${JSON.stringify(manifest, null, 2)}\n`);
console.log(`slim-package: ${dir}: ${imports.size} imports and ${exports.size} exports renamed, ${minified.length} JS files minified${web ? " (the glue with its snippets in it)" : ""}`);
