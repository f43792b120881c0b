// The worker's side: a server over its own global scope.
import { ErrorCode, JSONRPCServer, RPCError, selfTransport, transfer } from "wiggum-rpc";

const server = new JSONRPCServer(selfTransport());
server.method("add", ([a, b]) => a + b);
server.method("build", () => {
  throw new RPCError(ErrorCode.BUILD_FAILED, "Build failed", { diagnostics: [] });
});
server.method("reverse", ([bytes]) => {
  const out = bytes.slice().reverse();
  return transfer(out, [out.buffer]);
});
