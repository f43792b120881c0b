// A page built by one bundler calling a worker built by another, each with
// its own copy of the package and its own wasm instance: they meet only
// through messages. The worker is a classic script at a fixed URL, built
// separately (the test serves it at /other/worker.js).
import { ErrorCode, JSONRPCClient, RPCError, workerTransport } from "wiggum-rpc";

const worker = new Worker("/other/worker.js");
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
