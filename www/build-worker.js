// The build worker: a small real transformation of several source files
// (line comments stripped, lines trimmed), checked for unbalanced brackets
// first. Outputs are Uint8Arrays moved back with a transfer list; progress
// goes out as `buildProgress` notifications, one per file. Its params are
// checked by a schema (a hand-written Standard Schema, so that the page
// needs no schema library), which `rpc.discover` also publishes.
import init, { ErrorCode, Peer, RPCError, selfTransport, transfer } from "/pkg/wiggum_rpc.js";
import "/pkg/contracts.js";
import "/pkg/introspection.js";

// The page posts its compiled module first: instantiating it here needs no
// fetch and no compile (`compiledModule()` on the page).
const module = await new Promise((resolve) => {
  self.addEventListener("message", function first({ data }) {
    if (!(data instanceof WebAssembly.Module)) return;
    self.removeEventListener("message", first);
    resolve(data);
  });
});
await init({ module_or_path: module });
const main = new Peer(selfTransport(), { openrpc: { title: "Wiggum build worker", version: "1.0.0" } });

// `{ files: { [path]: source } }`, as a Standard Schema with its JSON Schema.
const buildParams = {
  "~standard": {
    version: 1,
    vendor: "wiggum-demo",
    validate(value) {
      const files = value?.files;
      if (files === null || typeof files !== "object" || Array.isArray(files)) {
        return { issues: [{ message: "files must be an object of path → source", path: ["files"] }] };
      }
      const issues = Object.entries(files)
        .filter(([, source]) => typeof source !== "string")
        .map(([path]) => ({ message: "a source must be a string", path: ["files", path] }));
      return issues.length ? { issues } : { value };
    },
    jsonSchema: {
      input: () => ({
        type: "object",
        properties: { files: { type: "object", additionalProperties: { type: "string" }, description: "path → source" } },
        required: ["files"],
      }),
      output: () => buildParams["~standard"].jsonSchema.input(),
    },
  },
};

const stripComments = (source) => source.replace(/\/\/.*$/gm, "");
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// The first bracket problem of a file, as a diagnostic, or undefined.
function diagnose(path, source) {
  const stack = [];
  const pairs = { ")": "(", "]": "[", "}": "{" };
  const lines = stripComments(source).split("\n");
  for (let line = 0; line < lines.length; line++) {
    for (const [column, char] of [...lines[line]].entries()) {
      if ("([{".includes(char)) stack.push({ char, line, column });
      else if (char in pairs && stack.pop()?.char !== pairs[char]) {
        return { file: path, line: line + 1, column: column + 1, message: `unexpected '${char}'` };
      }
    }
  }
  const open = stack.pop();
  return open && { file: path, line: open.line + 1, column: open.column + 1, message: `'${open.char}' is never closed` };
}

main.method("build", async ({ files }) => {
  const entries = Object.entries(files);
  const diagnostics = entries.map(([path, source]) => diagnose(path, source)).filter(Boolean);
  if (diagnostics.length) {
    throw new RPCError(ErrorCode.BUILD_FAILED, `Build failed: ${diagnostics.length} error(s)`, { diagnostics });
  }
  const outputs = {};
  for (const [index, [path, source]] of entries.entries()) {
    const code = stripComments(source).split("\n").map((line) => line.trim()).filter(Boolean).join("\n");
    outputs[path.replace(/^src\//, "dist/")] = new TextEncoder().encode(`${code}\n`);
    // Slow enough per file for the progress bar to be seen moving.
    await sleep(120);
    main.notify("buildProgress", { done: index + 1, total: entries.length, file: path });
  }
  return transfer({ outputs }, Object.values(outputs).map((bytes) => bytes.buffer));
}, {
  description: "Strips line comments and blank lines from each file; fails on unbalanced brackets",
  params: buildParams,
  returns: "{ outputs: { [path]: Uint8Array } }",
  errors: [ErrorCode.BUILD_FAILED],
});
