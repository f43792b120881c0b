// The root entry's API and the module's imports, as every build bundles
// them: the build's own entry (bundler.js, web.js, node.cjs's) instantiates
// the .wasm with `imports` and hands its exports to `start`.

export { ErrorCode, RPCError } from "./glue.js";
export { Transfer, transfer } from "./wire.js";
export { extensions } from "./extensions.js";
export { JSONRPCClient, JSONRPCServer, Peer, presentedSession, reconnectDelay } from "./endpoints.js";
export { Transport, portTransport, selfTransport, windowTransport, workerTransport } from "../transports/postmessage.js";

// The exported classes keep their names through minification (`Peer.name`,
// `error.constructor.name`, the console; esbuild's `keepNames` would name
// every function, for more bytes).
import { RPCError } from "./glue.js";
import { Transfer } from "./wire.js";
import { JSONRPCClient, JSONRPCServer, Peer } from "./endpoints.js";
import { Transport } from "../transports/postmessage.js";
import { extensions } from "./extensions.js";
import { requirements } from "../entries/requirements.js";

extensions.requirements = requirements;

for (const [named, name] of [[RPCError, "RPCError"], [Transfer, "Transfer"], [JSONRPCClient, "JSONRPCClient"], [JSONRPCServer, "JSONRPCServer"], [Peer, "Peer"], [Transport, "Transport"]]) {
  Object.defineProperty(named, "name", { value: name });
}
