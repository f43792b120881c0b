// Writes the package's subpath entries beside a build's glue, each one file
// bundled by esbuild from its source in js/ (a transport in js/transports/,
// the rest in js/entries/) with the files it imports there:
//
// - `websocket`, `http`: the WebSocket and HTTP transports;
// - `hub`: one server for many clients, with the SharedWorker, service
//   worker and BroadcastChannel transports and the Web Locks helpers;
// - `remote`, `stream`: API sugar that adds methods to the root's classes;
// - `pool`: a pool of workers behind one client;
// - `middleware`: retries that are safe (`retry`, `idempotency`);
// - `otel`: OpenTelemetry spans and trace context around every call, on
//   `@opentelemetry/api` (a peer dependency: the entry imports it);
// - `trace`, `contracts`, `introspection`: capabilities the root
//   refuses (or, introspection, does not serve) until their entry fills its
//   slot in the root's `extensions`.
//
// A source imports the root entry and the other entries as the package lays
// them out, beside it (`./wiggum_rpc.js`, `./websocket.js`): those imports
// stay imports (in Node's CommonJS build, of `./wiggum_rpc.cjs` …), so that a
// page pays for the root once. Any other import must be a file under js/.
// The install entries' sources export an install function (so the browser
// suite can load them without a package); the entry calls it with the
// root's exports. Importing the entry is what installs it: the package's
// `sideEffects` names these files. Each entry has its types beside its
// source (`.d.ts`; `.d.cts` in Node).
//
//   node scripts/subpath-entries.mjs <build dir> <esm|cjs>
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");

/** Each entry's source. */
export const SOURCES = {
  websocket: "js/transports/websocket.js",
  http: "js/transports/http.js",
  remote: "js/entries/remote.js",
  stream: "js/entries/stream.js",
  hub: "js/entries/hub.js",
  trace: "js/entries/trace.js",
  contracts: "js/entries/contracts.js",
  introspection: "js/entries/introspection.js",
  pool: "js/entries/pool.js",
  middleware: "js/entries/middleware.js",
  otel: "js/entries/otel.js",
};
/** Packages an entry may import, which stay imports: the package's peer dependencies. */
export const PEERS = ["@opentelemetry/api"];
export const SUBPATHS = Object.keys(SOURCES);
/** The sources of a build whose module takes references (Cargo feature `references`). */
export const REFERENCE_SOURCES = { ...SOURCES, remote: "js/entries/remote-references.js" };

/** The entries whose import installs something in the root's classes or `extensions`. */
export const INSTALLS = {
  remote: ["installRemote", ["JSONRPCClient", "JSONRPCServer", "Peer", "extensions", "RPCError"], ["reference", "referencesHeld", "withOptions"]],
  stream: ["installStream", ["JSONRPCClient", "Peer"]],
  trace: ["installTrace", ["extensions"]],
  middleware: ["installMiddleware", ["JSONRPCClient", "JSONRPCServer", "Peer", "extensions"], ["retry", "idempotency"]],
  contracts: ["installContracts", ["extensions"]],
  introspection: ["installIntrospection", ["extensions", "ErrorCode"]],
};

/** What a source may import from beside it in the package: the root and the other entries. */
const BESIDE = new Set(["./wiggum_rpc.js", ...SUBPATHS.map((name) => `./${name}.js`)]);

function fail(message) {
  console.error(`subpath-entries: ${message}`);
  process.exit(1);
}

/** Keeps the imports of the root and the other entries as imports; refuses anything not under js/. */
function packageLayout(format) {
  return {
    name: "package-layout",
    setup(build) {
      build.onResolve({ filter: /.*/ }, (args) => {
        if (args.kind === "entry-point") return undefined;
        if (PEERS.includes(args.path)) return { path: args.path, external: true };
        if (BESIDE.has(args.path)) {
          return { path: format === "cjs" ? args.path.replace(/\.js$/, ".cjs") : args.path, external: true };
        }
        const path = resolve(args.resolveDir, args.path);
        if (!/^[./]/.test(args.path) || !path.startsWith(join(root, "js/")) || !existsSync(path)) {
          return { errors: [{ text: `${args.importer} imports ${args.path}: not the root, an entry, or a file under js/` }] };
        }
        return { path };
      });
    },
  };
}

/** One entry as a module (ES or CommonJS): its source bundled with what it imports under js/, and its install call. */
async function entryCode(name, format, sources) {
  const source = join(root, sources[name]);
  const install = INSTALLS[name];
  let contents = `export * from ${JSON.stringify(source)};\n`;
  if (install) {
    const [fn, names, exported = []] = install;
    if (!readFileSync(source, "utf8").includes(`export function ${fn}(`)) fail(`${sources[name]} has no export function ${fn}(`);
    const list = names.join(", ");
    contents = `import { ${fn} } from ${JSON.stringify(source)};\nimport { ${list} } from "./wiggum_rpc.js";\n${fn}({ ${list} });\n`;
    // What the entry exports besides installing.
    if (exported.length !== 0) contents += `export { ${exported.join(", ")} } from ${JSON.stringify(source)};\n`;
  }
  const result = await build({
    stdin: { contents, resolveDir: root, sourcefile: `${name}.js`, loader: "js" },
    bundle: true,
    write: false,
    format,
    // Minified, with a source map beside each ES module.
    ...(format === "esm" ? { minify: true, sourcemap: "external", outfile: `${name}.js` } : {}),
    // esbuild marks the export names for Node's ES-module importers of the CommonJS build.
    ...(format === "cjs" ? { platform: "node", target: "node20" } : { platform: "neutral" }),
    plugins: [packageLayout(format)],
    logLevel: "silent",
  });
  const files = {};
  for (const file of result.outputFiles) files[file.path.endsWith(".map") ? "map" : "code"] = file.text;
  return files;
}

/** Writes every entry into `dir`, as ES modules or as CommonJS on `wiggum_rpc.cjs`. */
/**
 * `sources`: each entry's source, SOURCES unless a build says otherwise (a
 * module built with references has its own `remote`: REFERENCE_SOURCES).
 */
export async function writeSubpathEntries(dir, format, sources = SOURCES) {
  for (const name of SUBPATHS) {
    let code;
    let map;
    try {
      ({ code, map } = await entryCode(name, format, sources));
    } catch (error) {
      fail(`${name}: ${error.message}`);
    }
    let types = readFileSync(join(root, SOURCES[name].replace(/\.js$/, ".d.ts")), "utf8");
    if (!types.includes('"./wiggum_rpc.js"')) fail(`${name}.d.ts does not import ./wiggum_rpc.js`);
    if (format === "cjs") {
      // Types of the root and the other entries, as Node's build lays them out.
      for (const beside of ["wiggum_rpc", ...SUBPATHS]) types = types.replaceAll(`"./${beside}.js"`, `"./${beside}.cjs"`);
      writeFileSync(join(dir, `${name}.cjs`), code);
      writeFileSync(join(dir, `${name}.d.cts`), types);
    } else {
      writeFileSync(join(dir, `${name}.js`), `${code.trimEnd()}\n//# sourceMappingURL=${name}.js.map\n`);
      writeFileSync(join(dir, `${name}.js.map`), map);
      writeFileSync(join(dir, `${name}.d.ts`), types);
    }
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const [dir, format] = process.argv.slice(2);
  if (!dir || !["esm", "cjs"].includes(format)) fail("usage: node scripts/subpath-entries.mjs <build dir> <esm|cjs>");
  await writeSubpathEntries(dir, format);
}
