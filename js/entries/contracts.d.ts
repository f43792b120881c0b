// Types of `wiggum-rpc/contracts` (contracts.js): importing the entry makes
// Standard Schemas in a method's or notification's `info` work; the
// overloads of `method` and `onNotify` that infer a handler's types from
// them are the root's.
/**
 * Importing this entry makes Standard Schemas in a method's or notification's `info` work: params and results are checked, and handler types inferred.
 *
 * @module wiggum-rpc/contracts
 */

export type { MethodInfo, NotificationInfo, SchemaIssue, StandardSchemaV1 } from "./wiggum_rpc.js";
