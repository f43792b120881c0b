// What the build worker does with esbuild: bundles a multi-file TS/TSX
// project that lives in memory (`files`: path → source) or in a file system
// (ZenFS's `fs.promises`, under `dir`), reporting each file it loads and
// esbuild's warnings as they come, and turning esbuild's errors into
// diagnostics (text, file, line, column). The esbuild instance is given, so
// the same code runs in the browser (esbuild-wasm) and in Node's tests.

const LOADERS = { ts: "ts", tsx: "tsx", js: "js", jsx: "jsx", mjs: "js", json: "json", css: "css", txt: "text" };
const loaderOf = (path) => LOADERS[path.split(".").pop()] ?? "text";
const EXTENSIONS = ["", ".ts", ".tsx", ".js", ".jsx", ".json", "/index.ts", "/index.tsx", "/index.js"];

/** `a/b/../c` → `a/c`, with no leading slash. */
function normalize(path) {
  const parts = [];
  for (const part of path.split("/")) {
    if (part === "" || part === ".") continue;
    if (part === "..") parts.pop();
    else parts.push(part);
  }
  return parts.join("/");
}
const dirOf = (path) => path.split("/").slice(0, -1).join("/");

/** The project's sources, as a way to read one and the list of them. */
export function memorySource(files) {
  return {
    paths: async () => Object.keys(files).map(normalize),
    read: async (path) => {
      const found = Object.entries(files).find(([key]) => normalize(key) === path);
      return found === undefined ? undefined : found[1];
    },
  };
}

/** Sources read from a file system (`fs.promises` of ZenFS or Node) under `dir`. */
export function fileSystemSource(fsPromises, dir) {
  const root = dir.replace(/\/+$/, "");
  const walk = async (at) => {
    const found = [];
    for (const name of await fsPromises.readdir(`${root}/${at}`.replace(/\/+$/, ""))) {
      const path = at ? `${at}/${name}` : name;
      const stats = await fsPromises.stat(`${root}/${path}`);
      found.push(...(stats.isDirectory() ? await walk(path) : [path]));
    }
    return found;
  };
  return {
    paths: () => walk(""),
    // A file that cannot be read is an error of the build's, with why.
    read: (path) => fsPromises.readFile(`${root}/${path}`, "utf8"),
  };
}

/** esbuild's messages as the build's diagnostics. */
export const diagnosticsOf = (messages) =>
  messages.map(({ text, location }) => ({
    text,
    file: location?.file?.replace(/^project:/, "") ?? null,
    line: location?.line ?? null,
    column: location === null || location === undefined ? null : location.column + 1,
  }));

/**
 * Bundles `entry` of `source` with `esbuild`; resolves with
 * `{ outputs: { [path]: Uint8Array }, warnings }`, or rejects with
 * `{ diagnostics }` (esbuild's errors, or a missing entry).
 */
export async function bundle(esbuild, source, { entry, format = "iife", onLoad = () => {}, onWarnings = () => {} }) {
  const paths = await source.paths();
  const entryPath = normalize(entry);
  if (!paths.includes(entryPath)) {
    throw { diagnostics: [{ text: `no entry point ${entryPath} in a project of ${paths.length} file(s)`, file: entryPath, line: null, column: null }] };
  }
  let loaded = 0;
  const project = {
    name: "project",
    setup(build) {
      build.onResolve({ filter: /.*/ }, async ({ path, importer, kind }) => {
        if (kind === "entry-point") return { path: normalize(path), namespace: "project" };
        if (!path.startsWith(".") && !path.startsWith("/")) {
          return { errors: [{ text: `"${path}" is not a file of the project (packages are not resolved here)` }] };
        }
        const base = normalize(path.startsWith("/") ? path : `${dirOf(importer)}/${path}`);
        for (const extension of EXTENSIONS) {
          if (paths.includes(base + extension)) return { path: base + extension, namespace: "project" };
        }
        return { errors: [{ text: `cannot find "${path}" from ${importer}` }] };
      });
      build.onLoad({ filter: /.*/, namespace: "project" }, async ({ path }) => {
        let contents;
        try {
          contents = await source.read(path);
        } catch (error) {
          return { errors: [{ text: `cannot read ${path}: ${error?.message ?? error}` }] };
        }
        if (contents === undefined) return { errors: [{ text: `cannot read ${path}` }] };
        onLoad({ done: ++loaded, total: paths.length, file: path });
        return { contents, loader: loaderOf(path) };
      });
    },
  };
  let result;
  try {
    result = await esbuild.build({
      entryPoints: [entryPath],
      bundle: true,
      write: false,
      format,
      outdir: "dist",
      jsx: "transform",
      jsxFactory: "h",
      jsxFragment: "Fragment",
      logLevel: "silent",
      plugins: [project],
    });
  } catch (failure) {
    if (Array.isArray(failure?.errors)) {
      if (failure.warnings?.length) onWarnings(diagnosticsOf(failure.warnings));
      throw { diagnostics: diagnosticsOf(failure.errors) };
    }
    throw failure;
  }
  const warnings = diagnosticsOf(result.warnings);
  if (warnings.length) onWarnings(warnings);
  const outputs = {};
  for (const file of result.outputFiles) outputs[file.path.replace(/^.*\/dist\//, "dist/")] = file.contents;
  return { outputs, warnings };
}
