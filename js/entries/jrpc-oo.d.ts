// Types of `wiggum-rpc/jrpc-oo` (jrpc-oo.js): importing the entry makes the
// `jrpcOo` option of every endpoint work.
export type { EndpointOptions } from "./wiggum_rpc.js";
