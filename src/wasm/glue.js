// The few pieces of the JS API that must be plain JavaScript: an Error
// subclass, the transfer marker, the named codes, and helpers that keep the
// per-message path to a single crossing of the wasm boundary.

// The error every failed call rejects with, and that handlers may throw.
export class RPCError extends Error {
  constructor(code, message, data) {
    super(message);
    this.name = "RPCError";
    this.code = code;
    if (data !== undefined) this.data = data;
  }
}

// A value to send with a transfer list (zero-copy moves of ArrayBuffers, ports).
export class Transfer {
  constructor(value, transfer) {
    this.value = value;
    this.transfer = transfer;
  }
}

// Marks a handler's result (or a request's params) to be sent with `list` transferred.
export function transfer(value, list) {
  return new Transfer(value, Array.from(list));
}

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
  REQUEST_CANCELLED: -32800,
});

// Kinds, in the order of the core's `Kind` enum.
export function kindOf(value) {
  if (value === null) return 0;
  switch (typeof value) {
    case "boolean": return 1;
    case "number": return 2;
    case "string": return 3;
    case "object": return Array.isArray(value) ? 4 : 5;
    default: return 6;
  }
}

// An endpoint's message handler: reads a message's envelope and hands it to wasm
// in one call. flags: bits 0-2 the kind; 3 jsonrpc is "2.0"; 4-6 the id's kind + 1
// (0: absent); 7 a method; 8-10 the params' kind + 1; 11 a result; 12 an error.
export function envelopeReader(sink) {
  return (message) => {
    const kind = kindOf(message);
    if (kind !== 5) {
      sink(message, kind);
      return;
    }
    const { id, method, params, result, error } = message;
    let flags = kind;
    if (message.jsonrpc === "2.0") flags |= 1 << 3;
    if (id !== undefined) flags |= (kindOf(id) + 1) << 4;
    if (method !== undefined) flags |= 1 << 7;
    if (params !== undefined) flags |= (kindOf(params) + 1) << 8;
    if (result !== undefined) flags |= 1 << 11;
    if (error !== undefined) flags |= 1 << 12;
    sink(message, flags, id, method, params, result, error);
  };
}

export function isThenable(value) {
  return value !== null && (typeof value === "object" || typeof value === "function")
    && typeof value.then === "function";
}

// ---- the per-message path: each helper saves several boundary crossings ----

export function requestMessage(method, params, id) {
  return params === undefined ? { jsonrpc: "2.0", method, id } : { jsonrpc: "2.0", method, params, id };
}

export function notificationMessage(method, params) {
  return params === undefined ? { jsonrpc: "2.0", method } : { jsonrpc: "2.0", method, params };
}

// A success response; a handler that returned nothing answers `result: null`.
export function resultMessage(id, result) {
  return { jsonrpc: "2.0", result: result === undefined ? null : result, id };
}

export function errorMessage(id, code, message, data) {
  const error = data === undefined ? { code, message } : { code, message, data };
  return { jsonrpc: "2.0", error, id };
}

// Params of a call: 0 none, 1 an array or object, 2 a transfer() marker, 3 not allowed.
export function paramsKind(params) {
  if (params === undefined) return 0;
  if (params instanceof Transfer) return 2;
  return params !== null && typeof params === "object" ? 1 : 3;
}

// A pending call's promise with its resolve and reject.
export function deferred() {
  const call = {};
  call.promise = new Promise((resolve, reject) => {
    call.resolve = resolve;
    call.reject = reject;
  });
  return call;
}

export function settleCall(call, ok, value) {
  if (ok) call.resolve(value);
  else call.reject(value);
}

// A handler that declares a second parameter gets `{ signal }`: its controller.
export function callController(handler) {
  return handler.length >= 2 ? new AbortController() : undefined;
}

// With streaming, `emit(chunk)` sends a chunk of call `call` ahead of its result.
export function callContext(controller, emit, call) {
  const context = { signal: controller.signal };
  if (emit !== undefined) context.emit = (chunk) => emit(call, chunk);
  return context;
}

export function abortCall(controller, reason) {
  controller.abort(reason);
}

// Reports how a handler's promise settled, without a closure per call in wasm.
export function awaitOutcome(promise, settled, call) {
  Promise.resolve(promise).then(
    (value) => settled(call, true, value),
    (error) => settled(call, false, error),
  );
}

// What a thrown value becomes on the wire: {code, message, data?}.
export function errorParts(thrown) {
  // Errors from another realm (an iframe's) are not `instanceof` this one's.
  const isError = thrown instanceof Error || Object.prototype.toString.call(thrown) === "[object Error]";
  if (thrown instanceof RPCError || (isError && thrown.name === "RPCError" && Number.isInteger(thrown.code))) {
    return { code: thrown.code, message: String(thrown.message), data: thrown.data };
  }
  if (isError) return { code: -32603, message: thrown.message || "Internal error" };
  if (typeof thrown === "string") return { code: -32603, message: thrown };
  const data = thrown === undefined || typeof thrown === "function" || typeof thrown === "symbol"
    ? undefined : thrown;
  return { code: -32603, message: "Internal error", data };
}

// Whether `value` survives the transport's encoding (a structured clone or JSON text).
export function encodable(value, asText) {
  try {
    if (asText) JSON.stringify(value);
    else if (typeof structuredClone === "function") structuredClone(value);
    return true;
  } catch {
    return false;
  }
}

export function describe(error) {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}
