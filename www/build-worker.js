// The build worker: a small real transformation (comments stripped, lines
// trimmed), checked for unbalanced brackets. Outputs are Uint8Arrays moved
// back with a transfer list; progress goes out as notifications.
import init, { ErrorCode, Peer, RPCError, selfTransport, transfer } from "/pkg/wiggum_rpc.js";

await init();
const main = new Peer(selfTransport());

function diagnose(path, source) {
  const stack = [];
  const pairs = { ")": "(", "]": "[", "}": "{" };
  const lines = source.split("\n");
  for (let line = 0; line < lines.length; line++) {
    for (const char of lines[line]) {
      if ("([{".includes(char)) stack.push({ char, line });
      else if (char in pairs && stack.pop()?.char !== pairs[char]) {
        return { file: path, line: line + 1, message: `unexpected '${char}'` };
      }
    }
  }
  const open = stack.pop();
  return open && { file: path, line: open.line + 1, message: `'${open.char}' is never closed` };
}

main.method("build", async ({ files }) => {
  const entries = Object.entries(files);
  const diagnostics = entries.map(([path, source]) => diagnose(path, source)).filter(Boolean);
  if (diagnostics.length) throw new RPCError(ErrorCode.BUILD_FAILED, "Build failed", { diagnostics });
  const outputs = {};
  for (const [index, [path, source]] of entries.entries()) {
    const code = source.replace(/\/\/.*$/gm, "").split("\n").map((l) => l.trim()).filter(Boolean).join("\n");
    outputs[path.replace(/^src\//, "dist/")] = new TextEncoder().encode(code);
    main.notify("buildProgress", { done: index + 1, total: entries.length });
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return transfer({ outputs }, Object.values(outputs).map((bytes) => bytes.buffer));
});
