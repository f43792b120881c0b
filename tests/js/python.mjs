// The Python test servers (tests/py/*.py, in the venv scripts/setup.sh makes):
// started with a free port, which each prints as "listening <port>" once it
// accepts connections, so no connection attempt races its start; stopped by
// closing their stdin (tests/py/lifetime.py).
import { spawn } from "node:child_process";
import { once } from "node:events";
import { join } from "node:path";

const root = new URL("../..", import.meta.url).pathname;
const python = join(root, "target/pyenv/bin/python");

/** Starts `tests/py/<script>` with `args`; resolves with its port and `stop()`. */
export async function startPythonServer(script, args = []) {
  const child = spawn(python, [join(root, "tests/py", script), ...args], { stdio: ["pipe", "pipe", "pipe"] });
  let stderr = "";
  child.stderr.on("data", (chunk) => (stderr += chunk));
  const port = await new Promise((resolve, reject) => {
    let stdout = "";
    child.stdout.on("data", (chunk) => {
      stdout += chunk;
      const match = /^listening (\d+)$/m.exec(stdout);
      if (match) resolve(Number(match[1]));
    });
    child.once("error", reject);
    child.once("exit", (code) => reject(new Error(`${script} exited (${code}) before listening:\n${stderr}`)));
  });
  return {
    port,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = once(child, "exit");
      child.stdin.end();
      await exited;
    },
  };
}
