// Writes the package's subpath entries beside a build's glue, each importing
// that glue (`./wiggum_rpc.js`; in Node's CommonJS build `./wiggum_rpc.cjs`):
//
// - `websocket`, `http`: the WebSocket and HTTP transports (src/wasm/*.js as they are);
// - `hub`: one server for many clients (it imports `./websocket.js` too);
// - `remote`, `stream`: API sugar that adds methods to the root's classes;
// - `trace`, `contracts`, `introspection`, `jrpc-oo`: capabilities the root
//   refuses (or, introspection, does not serve) until their entry fills its
//   slot in the root's `extensions`.
//   These sources export an install function (so the browser suite can load
//   them without a package); the entry ends by calling it with the glue's
//   exports. Importing the entry is what installs it: the package's
//   `sideEffects` names these files.
//
// Each with its types (`.d.ts`; `.d.cts` in Node).
//
//   node scripts/subpath-entries.mjs <build dir> <esm|cjs>
import { readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { transformSync } from "esbuild";

export const SUBPATHS = ["websocket", "http", "remote", "stream", "hub", "trace", "contracts", "introspection", "jrpc-oo"];

/** The entries whose import installs something in the root's classes or `extensions`. */
export const INSTALLS = {
  remote: ["installRemote", ["JSONRPCClient", "JSONRPCServer", "Peer"]],
  stream: ["installStream", ["JSONRPCClient", "Peer"]],
  trace: ["installTrace", ["extensions"]],
  contracts: ["installContracts", ["extensions"]],
  introspection: ["installIntrospection", ["extensions", "ErrorCode"]],
  "jrpc-oo": ["installJrpcOo", ["extensions"]],
};

function fail(message) {
  console.error(`subpath-entries: ${message}`);
  process.exit(1);
}

/** An entry's ES-module text: the source, and its install call on the glue's classes. */
function entrySource(name) {
  const source = readFileSync(`src/wasm/${name}.js`, "utf8");
  const install = INSTALLS[name];
  if (!install) return source;
  const [fn, classes] = install;
  const declared = `export function ${fn}(`;
  if (!source.includes(declared)) fail(`src/wasm/${name}.js has no ${declared}`);
  const list = classes.join(", ");
  return `${source.replace(declared, `function ${fn}(`)}\nimport { ${list} } from "./wiggum_rpc.js";\n${fn}({ ${list} });\n`;
}

/** Writes every entry into `dir`, as ES modules or as CommonJS on `wiggum_rpc.cjs`. */
export function writeSubpathEntries(dir, format) {
  for (const name of SUBPATHS) {
    let code = entrySource(name);
    let types = readFileSync(`src/wasm/${name}.d.ts`, "utf8");
    if (!code.includes('"./wiggum_rpc.js"') || !types.includes('"./wiggum_rpc.js"')) fail(`${name} does not import ./wiggum_rpc.js`);
    if (format === "cjs") {
      // esbuild marks the export names for Node's ES-module importers.
      code = transformSync(code, { format: "cjs", platform: "node", target: "node20", sourcefile: `${name}.js` }).code;
      code = code.replaceAll('"./wiggum_rpc.js"', '"./wiggum_rpc.cjs"').replaceAll('"./websocket.js"', '"./websocket.cjs"');
      types = types.replaceAll('"./wiggum_rpc.js"', '"./wiggum_rpc.cjs"').replaceAll('"./websocket.js"', '"./websocket.cjs"');
      writeFileSync(join(dir, `${name}.cjs`), code);
      writeFileSync(join(dir, `${name}.d.cts`), types);
    } else {
      writeFileSync(join(dir, `${name}.js`), code);
      writeFileSync(join(dir, `${name}.d.ts`), types);
    }
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const [dir, format] = process.argv.slice(2);
  if (!dir || !["esm", "cjs"].includes(format)) fail("usage: node scripts/subpath-entries.mjs <build dir> <esm|cjs>");
  writeSubpathEntries(dir, format);
}
