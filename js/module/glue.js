// Errors and this side's calls: `RPCError` and the named codes, a thrown
// error read whole (and rebuilt where it lands), and the records of the
// calls this side makes, by id, until they settle. What goes on the wire
// (and the transfer marker) is built in wire.js; the calls this side serves
// run in serving.js; the module's side of the ABI is abi.js.

import { isThenable } from "./serving.js";
import { Transfer } from "./wire.js";
import { ABORT, CONSUMED } from "./numbers.js";

// The error every failed call rejects with, and that handlers may throw.
export class RPCError extends Error {
  constructor(code, message, data) {
    super(message);
    this.name = "RPCError";
    this.code = code;
    if (data !== undefined) this.data = data;
  }
}

// A thrown error, whole, as plain data: the `data` of the `-32603` it
// answers (the shape the docs give): `{ name, message, fields?, cause?,
// errors?, stack? }`, where `cause` is an error of the same shape (or the
// value itself), `errors` an AggregateError's, and `fields` its own
// enumerable data fields that survive the transport. The cause chain stops
// after MAX_CAUSES (and at a cycle); a getter that throws, a function or a
// value the transport cannot carry (a DOM node) is left out. The stack
// travels only when the endpoint is told to (`exposeStack`): paths leak.
const MAX_CAUSES = 16;
const MAX_ERRORS = 100;
const MAX_FIELDS = 50;
const OWN = new Set(["name", "message", "stack", "cause", "errors"]);

export function describeError(thrown, withStack, asText) {
  const seen = new Set();
  const read = (object, key) => {
    try {
      return object[key];
    } catch {
      return undefined;
    }
  };
  const carried = (value) => typeof value !== "function" && typeof value !== "symbol" && value !== undefined
    && (value === null || typeof value !== "object" || encodable(value, asText));
  const describe = (error, depth) => {
    seen.add(error);
    const name = read(error, "name");
    const message = read(error, "message");
    const out = { name: typeof name === "string" ? name : "Error", message: typeof message === "string" ? message : String(message ?? "") };
    let keys = [];
    try {
      keys = Object.keys(error);
    } catch {
      // A proxy that refuses: no fields.
    }
    let fields = 0;
    for (const key of keys) {
      if (OWN.has(key) || fields >= MAX_FIELDS) continue;
      const value = read(error, key);
      if (carried(value)) {
        (out.fields ??= {})[key] = value;
        fields += 1;
      }
    }
    const cause = read(error, "cause");
    if (cause !== undefined && depth < MAX_CAUSES && !seen.has(cause)) {
      if (cause !== null && typeof cause === "object") out.cause = describe(cause, depth + 1);
      else if (carried(cause)) out.cause = cause;
    }
    const errors = read(error, "errors");
    if (Array.isArray(errors) && depth < MAX_CAUSES) {
      out.errors = errors.slice(0, MAX_ERRORS).map((one) =>
        one !== null && typeof one === "object" && !seen.has(one) ? describe(one, depth + 1) : carried(one) ? one : String(one));
    }
    const stack = withStack ? read(error, "stack") : undefined;
    if (typeof stack === "string") out.stack = stack;
    return out;
  };
  try {
    return describe(thrown, 0);
  } catch {
    return undefined;
  }
}

// An RPCError as a call rejects with it: when its `data` is a whole error
// (describeError's shape, from wiggum-rpc or anyone who writes it), its
// `cause` (rebuilt as an Error of the remote name), `errors` and `fields`
// are there to read on it.
export function receivedError(code, message, data) {
  const error = new RPCError(code, message, data);
  if (described(data)) rebuildInto(error, data, 0);
  return error;
}

function described(data) {
  return data !== null && typeof data === "object" && typeof data.name === "string" && typeof data.message === "string";
}

function rebuildInto(error, data, depth) {
  if (data.cause !== undefined) error.cause = depth < MAX_CAUSES && described(data.cause) ? rebuild(data.cause, depth + 1) : data.cause;
  if (Array.isArray(data.errors)) {
    error.errors = data.errors.slice(0, MAX_ERRORS).map((one) => (depth < MAX_CAUSES && described(one) ? rebuild(one, depth + 1) : one));
  }
  if (data.fields !== null && typeof data.fields === "object") {
    for (const key of Object.keys(data.fields)) if (!(key in error)) error[key] = data.fields[key];
  }
}

function rebuild(data, depth) {
  const error = new Error(data.message);
  error.name = data.name;
  if (typeof data.stack === "string") error.stack = data.stack;
  rebuildInto(error, data, depth);
  return error;
}

// The core's `code::ALL`, entry for entry: the build fails when they differ (types.rs).
export const ErrorCode = Object.freeze({
  PARSE_ERROR: -32700,
  INVALID_REQUEST: -32600,
  METHOD_NOT_FOUND: -32601,
  INVALID_PARAMS: -32602,
  INTERNAL_ERROR: -32603,
  BUILD_FAILED: -32001,
  GATE_FAILED: -32002,
  PERMISSION_DENIED: -32003,
  TASK_CANCELLED: -32004,
  PREVIEW_LOAD_FAILED: -32005,
  NAVIGATION_FAILED: -32006,
  MCP_SERVER_ERROR: -32007,
  CONTEXT_OVERFLOW: -32008,
  REQUEST_TIMEOUT: -32099,
  DESTROYED: -32098,
  INVALID_RESPONSE: -32097,
  SEND_FAILED: -32096,
  CONNECTION_CLOSED: -32095,
  HTTP_ERROR: -32094,
  SESSION_EXPIRED: -32093,
  REQUEST_CANCELLED: -32800,
  TOO_MANY_CALLS: -32092,
  UNKNOWN_REFERENCE: -32091,
  TOO_MANY_REFERENCES: -32090,
});

// ---- calls of this side's ----
//
// The module names each call by its id; its record (the promise's resolve
// and reject, its callbacks) lives in its endpoint's `hooks.calls` until it
// settles, and crosses no boundary.

// Opens call `id`: its promise.
export function openCall(hooks, id, method, onChunk, onProgress) {
  let call;
  const promise = new Promise((resolve, reject) => {
    call = { method, resolve, reject, onChunk, onProgress, unwatch: undefined };
  });
  hooks.calls.set(id, call);
  return promise;
}

// The two ways a call settles.
export function resolveCall(hooks, id, result) {
  ending(hooks, id)?.resolve(result);
}

export function rejectCall(hooks, id, error) {
  ending(hooks, id)?.reject(error);
}

// The record of a call about to settle, taken out of its table (undefined once it has).
function ending(hooks, id) {
  const call = hooks.calls.get(id);
  if (call === undefined) return undefined;
  hooks.calls.delete(id);
  call.unwatch?.();
  return call;
}

// A throwing `onChunk` is reported like any uncaught error; it must not
// unwind through wasm, where the endpoint is carrying out its events.
export function chunk(hooks, id, value) {
  const call = hooks.calls.get(id);
  try {
    const taken = call?.onChunk?.(value);
    if (call?.consumed !== undefined) {
      if (isThenable(taken)) taken.then(call.consumed, call.consumed);
      else call.consumed();
    }
  } catch (error) {
    call?.consumed?.();
    queueMicrotask(() => {
      throw error;
    });
  }
}

// A call's progress, to its `onProgress`; a throwing one is reported like
// any uncaught error.
export function progress(hooks, id, value) {
  try {
    hooks.calls.get(id)?.onProgress?.(value);
  } catch (error) {
    queueMicrotask(() => {
      throw error;
    });
  }
}

// A windowed call (`window`): each chunk counts as taken once its `onChunk`
// is done with it (a promise it returns has settled), which lets the other
// side send more.
export function countConsumed(hooks, id) {
  const call = hooks.calls.get(id);
  if (call !== undefined) call.consumed = () => hooks.signal(CONSUMED, id);
}

// Tells the endpoint when the caller's signal fires (the reason is kept for
// the error), until the call settles.
export function watchAbort(hooks, id, signal) {
  const call = hooks.calls.get(id);
  if (call === undefined) return;
  const listener = () => {
    call.abortReason = signal.reason;
    hooks.signal(ABORT, id);
  };
  signal.addEventListener("abort", listener);
  call.unwatch = () => signal.removeEventListener("abort", listener);
}

// Whether `value` survives the transport's encoding (a structured clone or JSON text).
export function encodable(value, asText) {
  try {
    const inner = value instanceof Transfer ? value.value : value;
    if (asText) JSON.stringify(inner);
    else if (typeof structuredClone === "function") structuredClone(inner);
    return true;
  } catch {
    return false;
  }
}

export function describe(error) {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}
