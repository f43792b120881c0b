// Types of `wiggum-rpc/introspection` (introspection.js): importing the
// entry makes every server and peer serve `listMethods`, `describeMethods`
// and `rpc.discover` (unless made with `introspection: false`); the
// `openrpc` option is the root's.
/**
 * Importing this entry makes servers and peers answer `listMethods`, `describeMethods` and `rpc.discover` (OpenRPC).
 *
 * @module wiggum-rpc/introspection
 */

export type { OpenRPCOptions } from "./wiggum_rpc.js";
