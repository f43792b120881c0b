// A page as a bundler user writes it: `import … from "wiggum-rpc"`, a worker
// on the other side, the outcome in `window.result` for the test to read.
import { ErrorCode, JSONRPCClient, RPCError, workerTransport } from "wiggum-rpc";

const worker = new Worker(new URL("./worker.js", import.meta.url), { type: "module" });
const client = new JSONRPCClient(workerTransport(worker), { timeout: 5000 });
const result = {};
result.sum = await client.request("add", [2, 3]);
try {
  await client.request("build", { files: {} });
} catch (error) {
  result.buildFailed = error instanceof RPCError && error.code === ErrorCode.BUILD_FAILED;
}
const reversed = await client.request("reverse", [new Uint8Array([1, 2, 3])]);
result.reversed = reversed instanceof Uint8Array ? Array.from(reversed) : "not a Uint8Array";
window.result = result;
