// Types of `wiggum-rpc/trace` (trace.js): importing the entry makes the
// `trace` option of every endpoint work; what the hook gets is the root's
// `TraceRecord`.
/**
 * Importing this entry makes the `trace` option of every endpoint work.
 *
 * @module wiggum-rpc/trace
 */

export type { TraceRecord } from "./wiggum_rpc.js";
