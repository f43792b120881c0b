// Types of `wiggum-rpc/introspection` (introspection.js): importing the
// entry makes every server and peer serve `listMethods`, `describeMethods`
// and `rpc.discover` (unless made with `introspection: false`); the
// `openrpc` option is the root's.
export type { OpenRPCOptions } from "./wiggum_rpc.js";
