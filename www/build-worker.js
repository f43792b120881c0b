// The build worker: bundles the page's TS/TSX project with esbuild-wasm,
// loaded once per worker. `build({ files })` takes the sources from the call;
// `build({ dir })` reads them from the file system the page shares with this
// worker through ZenFS, on a MessageChannel of its own. Outputs are
// Uint8Arrays moved back with a transfer list; each file loaded is progress
// of the call (it keeps a long build alive), esbuild's warnings are `buildWarning`
// notifications, and its errors fail the call with BUILD_FAILED (-32001),
// whose data carries the diagnostics (text, file, line, column).
import init, { ErrorCode, Peer, RPCError, selfTransport, transfer } from "/pkg/wiggum_rpc.js";
import "/pkg/contracts.js";
import "/pkg/introspection.js";
import * as esbuild from "/vendor/esbuild/browser.min.js";
import { configure, fs, Port } from "/vendor/zenfs.js";
import { bundle, fileSystemSource, memorySource } from "./bundle.js";

// The page posts its compiled module first (instantiating it here needs no
// fetch and no compile), then the port of the shared file system.
const firstMessages = new Promise((resolve) => {
  let module;
  self.addEventListener("message", function first({ data }) {
    if (data instanceof WebAssembly.Module) module = data;
    else if (data?.type === "fs" && module) {
      self.removeEventListener("message", first);
      resolve({ module, fsPort: data.port });
    }
  });
});
const { module, fsPort } = await firstMessages;
fsPort.start(); // ZenFS listens with addEventListener, which does not start a port
await init({ module_or_path: module });
const main = new Peer(selfTransport(), { openrpc: { title: "Wiggum build worker", version: "1.0.0" } });

// esbuild-wasm and the file system start while the first calls may already wait.
// The page writes the project while this worker reads it: ZenFS's sync cache
// of a Port mount is a copy taken when it mounts, and an async read of a file
// written since fails against it ("Out of sync!"), so the cache is off.
const ready = Promise.all([
  esbuild.initialize({ wasmURL: "/vendor/esbuild/esbuild.wasm", worker: false }),
  configure({ mounts: { "/project": { backend: Port, port: fsPort, timeout: 5000, disableAsyncCache: true } } }),
]);

// `{ files: { [path]: source } }` or `{ dir }`, with an optional `entry`: a
// Standard Schema with its JSON Schema, so that the page needs no schema library.
const buildParams = {
  "~standard": {
    version: 1,
    vendor: "wiggum-demo",
    validate(value) {
      const { files, dir, entry } = value ?? {};
      if (entry !== undefined && typeof entry !== "string") return { issues: [{ message: "entry must be a path", path: ["entry"] }] };
      if (typeof dir === "string") return { value };
      if (files === null || typeof files !== "object" || Array.isArray(files)) {
        return { issues: [{ message: "files must be an object of path → source, or dir a directory", path: ["files"] }] };
      }
      const issues = Object.entries(files)
        .filter(([, source]) => typeof source !== "string")
        .map(([path]) => ({ message: "a source must be a string", path: ["files", path] }));
      return issues.length ? { issues } : { value };
    },
    jsonSchema: {
      input: () => ({
        type: "object",
        properties: {
          files: { type: "object", additionalProperties: { type: "string" }, description: "path → source" },
          dir: { type: "string", description: "a directory of the shared file system" },
          entry: { type: "string", description: "the entry point (default src/main.tsx)" },
        },
      }),
      output: () => buildParams["~standard"].jsonSchema.input(),
    },
  },
};

main.method("build", async ({ files, dir, entry = "src/main.tsx" }, { progress }) => {
  await ready;
  const source = typeof dir === "string" ? fileSystemSource(fs.promises, dir) : memorySource(files);
  try {
    const { outputs } = await bundle(esbuild, source, {
      entry,
      // Each file loaded is progress of this call: it keeps a long build from timing out.
      onLoad: (loaded) => progress(loaded),
      onWarnings: (warnings) => main.notify("buildWarning", { warnings }),
    });
    return transfer({ outputs }, Object.values(outputs).map((bytes) => bytes.buffer));
  } catch (failure) {
    if (!failure?.diagnostics) throw failure;
    const { diagnostics } = failure;
    throw new RPCError(ErrorCode.BUILD_FAILED, `Build failed: ${diagnostics.length} error(s)`, { diagnostics });
  }
}, {
  description: "Bundles a TS/TSX project with esbuild (from the call's files, or a directory of the shared file system)",
  params: buildParams,
  returns: "{ outputs: { [path]: Uint8Array } }",
  errors: [ErrorCode.BUILD_FAILED],
});
