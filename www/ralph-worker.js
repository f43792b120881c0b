// Ralph, the agent: a module worker that Chief (the page) reaches over a
// MessageChannel. It runs a task step by step, reports `progress` and
// `gateResult` notifications, asks Chief's `requestPermission` before
// writing a file, writes it into the file system Chief shares over the same
// port (ZenFS's Port backend beside the JSON-RPC peer), and stops when Chief
// calls `cancelTask`.
import init, { ErrorCode, Peer, RPCError, portTransport } from "/pkg/wiggum_rpc.js";
import { configure, fs, Port } from "/vendor/zenfs.js";

// The port hand-off is a plain message, with the page's compiled module (no
// fetch, no compile here); the port itself holds Chief's calls until
// portTransport starts it. ZenFS mounts over the same port: each protocol
// takes only its own messages, and destroying the peer leaves the port open.
self.addEventListener("message", async ({ data }) => {
  if (data?.type !== "connect" || !(data.port instanceof MessagePort)) return;
  await init({ module_or_path: data.module });
  const chief = new Peer(portTransport(data.port, { closePort: false }));
  // The page writes the project too: no sync cache to go stale (see build-worker.js).
  const mounted = configure({ mounts: { "/project": { backend: Port, port: data.port, timeout: 5000, disableAsyncCache: true } } });
  serve(chief, mounted);
});

const GATES = ["typecheck", "lint", "test"];

// Waits, unless the task is cancelled first.
function sleep(ms, signal) {
  return new Promise((resolve, reject) => {
    signal.throwIfAborted();
    const timer = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => {
      clearTimeout(timer);
      reject(signal.reason);
    }, { once: true });
  });
}

function serve(chief, mounted) {
  const running = new Map();

  async function writeFile(task, signal) {
    // Cancelling the task aborts the question too: the library then sends
    // Chief a `$/cancelRequest` for it.
    const { granted } = await chief.request(
      "requestPermission",
      { id: task.id, action: "write", path: task.file, question: `write ${task.file}?` },
      { signal, timeout: 0 }, // a person answers this one: no timeout
    );
    if (!granted) {
      throw new RPCError(ErrorCode.PERMISSION_DENIED, `Permission denied: write ${task.file}`, { id: task.id, path: task.file });
    }
    await mounted;
    const path = `/project/ralph/${task.file}`;
    await fs.promises.mkdir(path.split("/").slice(0, -1).join("/"), { recursive: true });
    await fs.promises.writeFile(path, `// ${task.title} (${task.id})\n`);
    await sleep(250, signal);
    return path;
  }

  async function runGates(task, signal) {
    await sleep(400, signal);
    // The gates run side by side and finish together: their results are
    // sent in one turn, so they travel as one JSON-RPC batch.
    const results = GATES.map((gate) => ({ id: task.id, gate, passed: true, findings: gate === "lint" ? ["1 warning: prefer const"] : [] }));
    for (const result of results) chief.notify("gateResult", result);
    const failed = results.filter((result) => !result.passed);
    if (failed.length) throw new RPCError(ErrorCode.GATE_FAILED, `Gate failed: ${failed[0].gate}`, failed[0]);
    return results;
  }

  chief.method("sendTask", async (task) => {
    const controller = new AbortController();
    const { signal } = controller;
    running.set(task.id, controller);
    const started = performance.now();
    let gates = [];
    let written;
    const steps = [
      ["read the codebase", () => sleep(350, signal)],
      ["plan the change", () => sleep(350, signal)],
      [`write ${task.file}`, async () => (written = await writeFile(task, signal))],
      ["run the gates", async () => (gates = await runGates(task, signal))],
      ["summarize", () => sleep(200, signal)],
    ];
    let index = 0;
    try {
      for (; index < steps.length; index++) {
        const [step, run] = steps[index];
        chief.notify("progress", { id: task.id, index, total: steps.length, step });
        await run();
      }
      chief.notify("progress", { id: task.id, index, total: steps.length, step: "done" });
      return {
        id: task.id,
        title: task.title,
        steps: steps.length,
        wrote: [written],
        gates: Object.fromEntries(gates.map(({ gate, passed }) => [gate, passed ? "pass" : "fail"])),
        ms: Math.round(performance.now() - started),
      };
    } catch (error) {
      if (signal.aborted) {
        throw new RPCError(ErrorCode.TASK_CANCELLED, `Task cancelled during "${steps[index][0]}"`, { id: task.id, step: index });
      }
      throw error;
    } finally {
      running.delete(task.id);
    }
  });

  chief.method("cancelTask", ({ id }) => {
    const controller = running.get(id);
    controller?.abort(new Error("cancelled by Chief"));
    return { id, cancelled: Boolean(controller) };
  });
}
