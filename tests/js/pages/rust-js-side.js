// The JS side of the Rust interop tests (rust-interop.js), in a worker or
// a frame, on the npm package's web build: it serves what the Rust app
// calls, and `callBack` calls the Rust side's methods in turn.
import init, { Peer, RPCError } from "/pkg/wiggum_rpc.js";

const asError = (error) => ({ code: error.code, message: error.message, data: error.data });

export async function serveJs(transport) {
  await init();
  const peer = new Peer(transport());
  peer.method("add", ({ a, b }) => a + b);
  peer.method("fail", () => {
    throw new RPCError(-32001, "build failed", { errors: 1 });
  });
  peer.method("echo", (value) => value);
  peer.method("hang", () => new Promise(() => {}));
  peer.method("callBack", async () => ({
    sum: await peer.request("add", { a: 20, b: 22 }),
    failed: await peer.request("fail").catch(asError),
    blob: await peer.request("blob", new Blob(["from JS"])).then(([isBlob, blob]) => [isBlob, blob instanceof Blob, blob.size]),
    badParams: await peer.request("add", { a: "x", b: 1 }).catch(asError),
  }));
  return peer;
}
