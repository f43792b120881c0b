// The Wiggum frontend's way in: `import … from "wiggum-rpc"`, bundled, a
// worker on the other side.
import { ErrorCode, JSONRPCClient, RPCError, workerTransport } from "wiggum-rpc";

declare global {
  interface Window {
    result?: Record<string, unknown>;
  }
}

const worker = new Worker(new URL("./worker.js", import.meta.url), { type: "module" });
const client = new JSONRPCClient(workerTransport(worker), { timeout: 5000 });
const result: Record<string, unknown> = {};
result.sum = await client.request<number>("add", [2, 3]);
try {
  await client.request("build", { files: {} });
} catch (error) {
  result.buildFailed = error instanceof RPCError && error.code === ErrorCode.BUILD_FAILED;
  result.isError = error instanceof Error;
}
const reversed = await client.request<Uint8Array>("reverse", [new Uint8Array([1, 2, 3])]);
result.reversed = reversed instanceof Uint8Array ? Array.from(reversed) : "not a Uint8Array";
window.result = result;
