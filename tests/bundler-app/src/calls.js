// What every page of this app asks its worker, whoever built either side:
// a sum, an RPCError with its code, a transferred Uint8Array.
import { ErrorCode, JSONRPCClient, RPCError, workerTransport } from "wiggum-rpc";

export async function callWorker(worker) {
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
  return result;
}
