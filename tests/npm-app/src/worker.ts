import { ErrorCode, JSONRPCServer, RPCError, selfTransport, transfer } from "wiggum-rpc";

const server = new JSONRPCServer(selfTransport());
server.method("add", ([a, b]: [number, number]) => a + b);
server.method("build", () => {
  throw new RPCError(ErrorCode.BUILD_FAILED, "Build failed", { diagnostics: [] });
});
server.method("reverse", ([bytes]: [Uint8Array]) => {
  const out = bytes.slice().reverse();
  return transfer(out, [out.buffer]);
});
