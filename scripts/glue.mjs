// Writes a build's JS beside its .wasm (scripts/build.sh runs it once
// `wasm-pack build` has made the .wasm and wasm-bindgen's glue for its
// imports, `wiggum_rpc_generated.js`, and wasm-opt has run): the package
// layout, from wasm-bindgen's glue and ours in js/module/ (bundled by
// esbuild, minified, with source maps). wasm-bindgen's own loaders are not
// used: a page hands its compiled module to its workers (web.js), which
// `--target web` keeps private, and the Node build is one CommonJS file
// with its framing.
//
// - bundler (pkg/): `wiggum_rpc_bg.js`, the glue, whose exports include the
//   functions the .wasm imports from it by name; `wiggum_rpc.js`, the root
//   entry, which imports the .wasm as a WebAssembly ES module (webpack,
//   Vite, js/tools/esbuild.js) and starts the glue with its exports; the
//   check that runs before the .wasm is imported (snippets/).
// - web (pkg-web/, the package's web/): one `wiggum_rpc.js` with `init()`,
//   its build id (a hash of the .wasm) stamped in for the module hand-off.
// - node: `wiggum_rpc.js`, CommonJS, which reads the .wasm beside it
//   (package-entries.mjs installs it as node/wiggum_rpc.cjs).
//
// Each gets `wiggum_rpc.d.ts` (js/types/wiggum_rpc.d.ts, plus `init()` and
// `compiledModule()` where the build has them), the README, the licences and
// a manifest; web and bundler builds get the subpath entries (subpath-entries.mjs).
//
//   node scripts/glue.mjs <bundler|web|node> <dir>
import { createHash } from "node:crypto";
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { REFERENCE_SOURCES, SOURCES, writeSubpathEntries } from "./subpath-entries.mjs";

const root = resolve(fileURLToPath(import.meta.url), "../..");
const [target, dir] = process.argv.slice(2);
const fail = (message) => {
  console.error(`glue: ${message}`);
  process.exit(1);
};
if (!["bundler", "web", "node"].includes(target) || !dir) fail("usage: node scripts/glue.mjs <bundler|web|node> <dir>");

// The root entry's public names (the manifest's and the bundler entry's).
const PUBLIC = [
  "ErrorCode", "JSONRPCClient", "JSONRPCServer", "Peer", "RPCError", "Transfer", "Transport", "extensions", "portTransport",
  "presentedSession", "reconnectDelay", "selfTransport", "transfer", "windowTransport", "workerTransport",
];

// Short names for the module's exports and imports: the JS names each
// export as `$name` (`x.$recv`: js/module/abi.js), which esbuild renames
// (`mangleProps`) as this table says, the imports object (`./imports.js`)
// is written with them, and the .wasm's export and import sections are
// rewritten to match. `memory` and wasm-bindgen's own (`__wbindgen_*`,
// which its glue names) keep theirs. Every build of one .wasm gets the same table.
const keepsName = (name) => name === "memory" || name.startsWith("__wbindgen");
// Exports nothing reads: the linker's and wasm-bindgen's bookkeeping.
const DROPPED = new Set(["__data_end", "__heap_base", "__abort_handler", "__instance_terminated"]);
function shortNames(module) {
  const names = [...new Set([...WebAssembly.Module.exports(module), ...WebAssembly.Module.imports(module)].map((e) => e.name))]
    .filter((name) => !keepsName(name) && !DROPPED.has(name))
    .sort();
  const letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
  const short = (i) => (i < letters.length ? letters[i] : short(Math.floor(i / letters.length) - 1) + letters[i % letters.length]);
  return Object.fromEntries(names.map((name, i) => [`$${name}`, short(i)]));
}

// The .wasm with its exports and imports renamed (`table`: `$name` → short
// name), every import from the one module of its glue, "./wiggum_rpc_bg.js".
function renameExports(bytes, table) {
  const out = [bytes.subarray(0, 8)];
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
  const encode = (value) => {
    const out = [];
    do {
      let byte = value % 128;
      value = Math.floor(value / 128);
      if (value > 0) byte |= 0x80;
      out.push(byte);
    } while (value > 0);
    return out;
  };
  while (at < bytes.length) {
    const start = at;
    const id = bytes[at++];
    const size = uleb();
    const end = at + size;
    if (id !== 7 && id !== 2) {
      out.push(bytes.subarray(start, end));
      at = end;
      continue;
    }
    const section = [];
    const renamed = (name) => {
      const short = keepsName(name) ? name : table[`$${name}`];
      if (short === undefined) fail(`no short name for ${name}`);
      const bytes = Buffer.from(short, "utf8");
      return [...encode(bytes.length), ...bytes];
    };
    const nameAt = () => {
      const length = uleb();
      const name = Buffer.from(bytes.subarray(at, at + length)).toString("utf8");
      at += length;
      return name;
    };
    if (id === 2) {
      const count = uleb();
      section.push(...encode(count));
      const moduleName = [...encode(GLUE_MODULE.length), ...Buffer.from(GLUE_MODULE, "utf8")];
      for (let i = 0; i < count; i++) {
        nameAt();
        const name = nameAt();
        const kind = bytes[at++];
        if (kind !== 0) fail(`an import that is not a function: ${name}`);
        const typeStart = at;
        uleb();
        section.push(...moduleName, ...renamed(name), kind, ...bytes.subarray(typeStart, at));
      }
      out.push(Uint8Array.of(2, ...encode(section.length), ...section));
      at = end;
      continue;
    }
    const count = uleb();
    section.push(...encode(count));
    let kept = 0;
    for (let i = 0; i < count; i++) {
      const name = nameAt();
      const kind = bytes[at++];
      const indexStart = at;
      uleb();
      if (DROPPED.has(name)) continue;
      section.push(...renamed(name), kind, ...bytes.subarray(indexStart, at));
      kept += 1;
    }
    section.splice(0, encode(count).length, ...encode(kept));
    out.push(Uint8Array.of(7, ...encode(section.length), ...section));
    at = end;
  }
  return Buffer.concat(out);
}

// The module the .wasm's imports all come from, once renamed.
const GLUE_MODULE = "./wiggum_rpc_bg.js";

// wasm-bindgen's glue and the imports object, as the bundle resolves them
// (js/module/bindgen.js): `./wiggum_rpc_generated.js` is what `wasm-pack
// build` wrote, `./wiggum_rpc_glue.js` (the module the Rust's imports name)
// is abi.js, `./imports.js` is written here from the .wasm's imports.
const bindgenPlugin = {
  name: "wasm-bindgen",
  setup(build) {
    build.onResolve({ filter: /^\.\/wiggum_rpc_generated\.js$/ }, () => ({ path: generated }));
    build.onResolve({ filter: /^\.\/wiggum_rpc_glue\.js$/ }, () => ({ path: join(root, "js/module/abi.js") }));
    build.onResolve({ filter: /^\.\/imports\.js$/ }, () => ({ path: "imports.js", namespace: "wasm-bindgen" }));
    build.onLoad({ filter: /.*/, namespace: "wasm-bindgen" }, () => ({
      contents: importsSource(),
      resolveDir: join(root, "js/module"),
      loader: "js",
    }));
  },
};

// Where each import of the .wasm (as wasm-bindgen left it) comes from:
// its shims, or abi.js straight (an import that takes no handle needs no shim).
function importedFrom(module, name) {
  if (module === "./wiggum_rpc_bg.js") return ["./wiggum_rpc_generated.js", name];
  if (module === "./wiggum_rpc_glue.js") return ["./abi.js", name];
  fail(`the .wasm imports ${name} from ${module}: neither wasm-bindgen's glue nor ours`);
}

function importsSource() {
  const lines = ['import * as generated from "./wiggum_rpc_generated.js";', 'import * as glue from "./abi.js";'];
  const members = imported.map(({ module, name }) => {
    const [from, as] = importedFrom(module, name);
    return `${JSON.stringify(shortOf(name))}: ${from === "./abi.js" ? "glue" : "generated"}.${as}`;
  });
  lines.push(`export const imports = { ${JSON.stringify(GLUE_MODULE)}: { ${members.join(", ")} } };`);
  return lines.join("\n");
}

const shortOf = (name) => (keepsName(name) ? name : table[`$${name}`]);

async function bundle(source, out, format, more = "") {
  const file = `./${source.split("/").pop()}`;
  const hasDefault = /^export default /m.test(readFileSync(join(root, source), "utf8"));
  const contents = `export * from "${file}";\n${hasDefault ? `export { default } from "${file}";\n` : ""}${more}${referenceOps}${handsOff ? 'import "./handoff.js";\n' : ""}`;
  const result = await build({
    mangleProps: /^\$/,
    mangleCache: { ...table },
    // A module without references gets glue without their code (js/module/abi.js, `WITH_REFERENCES`).
    // The Node build's transports also take worker_threads' Worker and parentPort (postmessage.js, `WITH_NODE`).
    define: { WITH_REFERENCES: referenceOps === "" ? "false" : "true", WITH_HANDOFF: String(handsOff), WITH_NODE: String(target === "node") },
    stdin: { contents, resolveDir: join(root, "js/module"), sourcefile: out, loader: "js" },
    bundle: true,
    format,
    minify: true,
    sourcemap: "external",
    outfile: join(dir, out),
    write: false,
    ...(format === "cjs" ? { platform: "node", target: "node20" } : { platform: "neutral", target: "es2022" }),
    logLevel: "silent",
    metafile: false,
    plugins: [bindgenPlugin],
  });
  const extra = Object.keys(result.mangleCache).filter((name) => !(name in table));
  if (extra.length) fail(`${source} names ${extra.join(", ")}, which the module does not export`);
  const files = {};
  for (const file of result.outputFiles) files[file.path.endsWith(".map") ? "map" : "code"] = file.text;
  return files;
}

const write = (name, text) => writeFileSync(join(dir, name), text);
// The .wasm as wasm-pack and wasm-opt left it, and wasm-bindgen's glue (a
// build run again starts from there: build.sh writes them anew).
let wasm = readFileSync(join(dir, "wiggum_rpc_bg.wasm"));
const generated = resolve(dir, "wiggum_rpc_generated.js");
if (!existsSync(generated)) fail(`no ${generated}: build the module with scripts/build.sh`);
// The imports as wasm-bindgen left them (their module and name).
const imported = WebAssembly.Module.imports(new WebAssembly.Module(wasm));
const table = shortNames(new WebAssembly.Module(wasm));
if (Object.values(table).length === 0 || WebAssembly.Module.exports(new WebAssembly.Module(wasm)).some((e) => e.name.length <= 2 && e.name !== "memory")) {
  fail("the .wasm's exports are short already: build it anew (scripts/build.sh)");
}
wasm = renameExports(wasm, table);
// A module built with references (Cargo feature `references`) has their
// exports: its glue bundles what speaks to them (js/module/references.js).
const referenceOps = "$export_refs" in table ? 'import "./references.js";\n' : "";
// A module built to hand sessions between processes (Cargo feature
// `handoff`, the Node build's) has `hand_off`: its glue gets `Peer.handOff`.
const handsOff = "$hand_off" in table;
writeFileSync(join(dir, "wiggum_rpc_bg.wasm"), wasm);
const types = readFileSync(join(root, "js/types/wiggum_rpc.d.ts"), "utf8");
const compiledModuleTypes = (web) => `
/**
 * ${web ? `The WebAssembly.Module this build compiled, or undefined before \`init()\`
 * settles. Post it to a worker (a module is cloned, not transferred) and the
 * worker's \`init({ module_or_path: module })\` instantiates it without
 * fetching or compiling the .wasm again.` : `The WebAssembly.Module this build compiled when it was loaded. (A Node
 * worker thread that loads the package compiles its own: \`init()\` has
 * nothing to do in Node.)`}
 */
export function compiledModule(): WebAssembly.Module${web ? " | undefined" : ""};
`;
const initTypes = `
export type InitInput = RequestInfo | URL | Response | BufferSource | WebAssembly.Module;

/** The module's exports (its plain numeric ABI: nothing to call from outside). */
export interface InitOutput {
  readonly memory: WebAssembly.Memory;
}

export type SyncInitInput = BufferSource | WebAssembly.Module;

/** Instantiates the module synchronously from a compiled module or its bytes. */
export function initSync(module: { module: SyncInitInput } | SyncInitInput): InitOutput;

/**
 * Instantiates the module: fetched from beside this file unless given (a
 * URL, a response, bytes or a compiled module). Resolves once the classes
 * can be used; a second call resolves with the same module.
 */
export default function init(module_or_path?: { module_or_path: InitInput | Promise<InitInput> } | InitInput | Promise<InitInput>): Promise<InitOutput>;
`;

function manifest(main, extra) {
  const cargo = readFileSync(join(root, "Cargo.toml"), "utf8");
  const field = (name) => cargo.match(new RegExp(`^${name} = "([^"]*)"`, "m"))?.[1];
  return {
    name: field("name"),
    type: "module",
    description: field("description"),
    version: field("version"),
    license: field("license"),
    files: ["wiggum_rpc_bg.wasm", main, "wiggum_rpc.d.ts", "*.js.map", ...extra],
    main,
    types: "wiggum_rpc.d.ts",
    sideEffects: [`./${main}`, "./snippets/*"],
    keywords: JSON.parse(cargo.match(/^keywords = (\[.*\])$/m)?.[1] ?? "[]"),
  };
}

for (const file of ["README.md", "LICENSE-APACHE", "LICENSE-MIT"]) copyFileSync(join(root, file), join(dir, file));

if (target === "bundler") {
  // The functions the .wasm imports from this glue, exported by their short names.
  const exported = imported
    .map(({ module, name }) => {
      const [from, as] = importedFrom(module, name);
      return `export { ${as} as ${shortOf(name)} } from "${from}";\n`;
    })
    .join("");
  const glue = await bundle("js/module/bundler.js", "wiggum_rpc_bg.js", "esm", exported);
  write("wiggum_rpc_bg.js", `${glue.code.trimEnd()}\n//# sourceMappingURL=wiggum_rpc_bg.js.map\n`);
  write("wiggum_rpc_bg.js.map", glue.map);
  mkdirSync(join(dir, "snippets"), { recursive: true });
  copyFileSync(join(root, "js/module/wasm-refused.js"), join(dir, "snippets/wasm-refused.js"));
  write(
    "snippets/wasm-allowed.js",
    `// Asked before the root entry imports its .wasm: a bundler's own load of a\n// refused module fails with a CompileError that says nothing of what to do.\nimport { wasmRefused } from "./wasm-refused.js";\n\nconst refused = wasmRefused();\nif (refused !== undefined) throw refused;\n`,
  );
  write(
    "wiggum_rpc.js",
    `import "./snippets/wasm-allowed.js";\nimport * as wasm from "./wiggum_rpc_bg.wasm";\nimport { start } from "./wiggum_rpc_bg.js";\nstart(wasm);\nexport { ${PUBLIC.join(", ")} } from "./wiggum_rpc_bg.js";\n`,
  );
  write("wiggum_rpc.d.ts", types);
  await writeSubpathEntries(dir, "esm", referenceOps === "" ? SOURCES : REFERENCE_SOURCES);
  write("package.json", `${JSON.stringify(manifest("wiggum_rpc.js", ["wiggum_rpc_bg.js", "snippets"]), null, 2)}\n`);
} else if (target === "web") {
  const glue = await bundle("js/module/web.js", "wiggum_rpc.js", "esm");
  const id = createHash("sha256").update(wasm).digest("base64url").slice(0, 16);
  const stamped = glue.code.replace(/(["'`])wiggum-rpc:build\1/g, (_, quote) => `${quote}${id}${quote}`);
  if (stamped === glue.code) fail("the web glue has no build id to stamp");
  write("wiggum_rpc.js", `${stamped.trimEnd()}\n//# sourceMappingURL=wiggum_rpc.js.map\n`);
  write("wiggum_rpc.js.map", glue.map);
  write("wiggum_rpc.d.ts", `${types}${initTypes}${compiledModuleTypes(true)}`);
  await writeSubpathEntries(dir, "esm", referenceOps === "" ? SOURCES : REFERENCE_SOURCES);
  write("package.json", `${JSON.stringify(manifest("wiggum_rpc.js", []), null, 2)}\n`);
} else {
  const glue = await bundle("js/module/node.js", "wiggum_rpc.js", "cjs");
  write("wiggum_rpc.js", glue.code);
  const framing = readFileSync(join(root, "js/types/framing.d.ts"), "utf8").replace(/^(\/\/|import ).*\n/gm, "");
  const handoff = handsOff ? `\n${readFileSync(join(root, "js/types/handoff.d.ts"), "utf8").replace(/^(\/\/|import ).*\n/gm, "")}` : "";
  write("wiggum_rpc.d.ts", `${types}${compiledModuleTypes(false)}\n${framing}${handoff}`);
}
rmSync(generated);
console.log(`glue: ${target} build in ${dir}`);
