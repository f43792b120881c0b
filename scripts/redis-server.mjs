// A redis-server of a caller's own on 127.0.0.1 (Debian's, installed by
// scripts/setup.sh), nothing saved to disk: the demo's hub processes
// (demo-hub.mjs) and the cluster tests and benchmark
// (tests/js/cluster-kit.mjs) each start one.
import { spawn } from "node:child_process";
import { once } from "node:events";
import { createServer } from "node:net";

/** A port of 127.0.0.1 free now. */
export async function freePort() {
  const server = createServer().listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * Starts redis-server on `port` (a free one by default); rejects, with its
 * output, if it exits or is not ready within 10 s (or is not installed).
 */
export async function startRedisServer(port) {
  port ??= await freePort();
  const child = spawn("redis-server", ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout.on("data", (chunk) => (output += chunk));
  child.stderr.on("data", (chunk) => (output += chunk));
  const failed = new Promise((resolve) => child.once("error", resolve).once("exit", resolve));
  for (let waited = 0; !/Ready to accept connections/.test(output); waited += 20) {
    const gone = await Promise.race([failed, new Promise((resolve) => setTimeout(() => resolve(false), 20))]);
    if (gone !== false || waited > 10_000) {
      child.kill("SIGKILL");
      throw new Error(`redis-server did not start: ${gone?.message ?? output}`);
    }
  }
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    /** Stalls it (SIGSTOP): connections stay up, nothing is answered. */
    pause() {
      child.kill("SIGSTOP");
    },
    resume() {
      child.kill("SIGCONT");
    },
    /** Stops it (SIGTERM; SIGKILL if it is still there after 5 s). */
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill("SIGCONT");
      const exited = once(child, "exit");
      child.kill("SIGTERM");
      const late = setTimeout(() => child.kill("SIGKILL"), 5000);
      await exited.finally(() => clearTimeout(late));
    },
  };
}
