// The few pieces of the JS API that must be plain JavaScript: an Error
// subclass and the named codes, the message reader and this side's calls:
// what keeps the per-message path to a single crossing of the wasm
// boundary. What goes on the wire (and the transfer marker) is built in
// wire.js; the calls this side serves run in serving.js; what the
// capability entries plug in is in extensions.js. None of them imports
// this file: the modules' imports form no cycle.

import { handlerThrew, invoke, isThenable, takeThrown, UNSENT, UNSENT_ANSWER } from "./serving.js";
import { postOne, requestMessage, resultMessage, takeSendFailure, Transfer } from "./wire.js";

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
});

// ---- an endpoint's options ----

// What an endpoint's options and its transport say, read and checked here
// and written as ten numbers into the module's memory at `at` (the binding's
// `options.rs` names each; envelope.rs, `opening`, the bits, and the build
// checks them): the module reads no option by name. -1 or NaN: not given.
// Returns 0, or 1 when the transport is not one.
const JRPC_OO = 1;
const MCP = 2;
const HOLD = 4;
const ANNOUNCE = 8;
const SPEAKS_TEXT = 16;
const EXPOSE_STACK = 32;
const CONNECTING = 64;
const SETTLED = 128;
const IDLE = 256;
const TRACED = 512;
const PRESENCE = 1024;

export function openOptions(transport, options, memory, at) {
  if (transport === null || typeof transport !== "object" || typeof transport.send !== "function"
    || typeof transport.onMessage !== "function") return 1;
  const given = options !== null && typeof options === "object" ? options : {};
  const number = (value, least) => (typeof value === "number" && value >= least ? value : -1);
  const { batches, limits } = given;
  const { session } = transport;
  const flags = (given.jrpcOo === true ? JRPC_OO : 0) | (transport.dialect === "mcp" ? MCP : 0)
    | (transport.handshake === "hold" ? HOLD : transport.handshake === "announce" ? ANNOUNCE : 0)
    | (transport.text === true ? SPEAKS_TEXT : 0) | (given.exposeStack === true ? EXPOSE_STACK : 0)
    | (typeof transport.settled === "function" ? SETTLED : 0) | (typeof transport.idle === "function" ? IDLE : 0)
    | (given.trace !== undefined ? TRACED : 0) | (typeof transport.presence === "string" ? PRESENCE : 0)
    | (transport.connected === false ? CONNECTING : 0);
  const slots = new Float64Array(memory.buffer, at, 10);
  slots[0] = flags;
  // A transport may know better (a WebSocket's server may be slow: 60 s).
  slots[1] = typeof given.timeout === "number" ? given.timeout
    : typeof transport.defaultTimeout === "number" ? transport.defaultTimeout : NaN;
  slots[2] = given.batch === true ? 1 : given.batch === false ? 2 : 0;
  slots[3] = typeof batches === "number" ? Math.max(0, batches) || 0 : batches === "reject" ? -2 : batches === "allow" ? -3 : -1;
  slots[4] = number(limits?.maxInFlight, 1);
  slots[5] = number(limits?.maxMessageBytes, 1);
  slots[6] = number(limits?.maxDepth, 1);
  // A session: "client" (a WebSocket that reconnects asks for one), or what
  // a server grants, `{ id, grace, maxKept }` (the hub's).
  const served = session !== null && typeof session === "object" && typeof session.id === "string";
  slots[7] = session === "client" ? 1 : served ? 2 : 0;
  slots[8] = served ? number(session.grace, 0) : -1;
  slots[9] = served ? number(session.maxKept, 1) : -1;
  return 0;
}

// ---- the transport's messages and events, to the endpoint ----

// What the endpoint is told through `hooks.signal` (boundary.rs, `signal`:
// the build checks that these match).
const ABORT = 3;
const CLOSED = 7;
const OPENED = 10;
const UNDELIVERED = 15;
const CONSUMED = 16;

// Subscribes the endpoint to its transport: each message to its reader
// (`envelopeReader`), and its `close`, `open` and (`followsCalls`: a
// transport that reports the calls it got no response to) `undelivered`
// events to the endpoint. `detach(hooks)` (serving.js) takes them all off again.
export function listen(hooks, transport, table, maxBytes, maxDepth, textTransport, traced, followsCalls) {
  const reader = envelopeReader(hooks.wasm, hooks.endpoint, hooks, transport, table, maxBytes, maxDepth, textTransport, traced);
  transport.onMessage(reader);
  const off = [];
  if (typeof transport.offMessage === "function") off.push(() => transport.offMessage(reader));
  const on = (event, listener) => {
    const remove = transport.on(event, listener);
    if (typeof remove === "function") off.push(remove);
  };
  if (typeof transport.on === "function") {
    on("close", (detail) => hooks.signal(CLOSED, 0, detail));
    on("open", () => hooks.signal(OPENED, 0));
    if (followsCalls) on("undelivered", (detail) => hooks.signal(UNDELIVERED, 0, detail));
  }
  hooks.listening = off;
}

// ---- the JS↔wasm boundary: every crossing of the per-message path is here ----
//
// Kinds, in the order of the core's `Kind` enum (`boundary.rs` reads them).
// A transfer() marker is the kind of what it carries: what goes on the wire.
export function kindOf(value) {
  if (value === null) return 0;
  switch (typeof value) {
    case "boolean": return 1;
    case "number": return 2;
    case "string": return 3;
    case "object": return Array.isArray(value) ? 4 : value instanceof Transfer ? kindOf(value.value) : 5;
    default: return 6;
  }
}

// Method names the module has read, by the number it remembers each by
// (boundary.rs, `names`): a name seen before crosses as that number. Each
// instance of the module numbers names its own way, in a table of its own:
// two instances in one realm (the entry imported under two URLs, or the
// .wasm instantiated twice) share this file, and a shared table would give
// one instance's number to the other's name.
const nameTables = [];

export function nameTable() {
  return nameTables.push(new Map()) - 1;
}

export function nameIndex(table, value) {
  if (typeof value !== "string") return -2;
  return nameTables[table].get(value) ?? -1;
}

export function rememberName(table, name, index) {
  nameTables[table].set(name, index);
}

// Envelope flags, as `boundary.rs` names them (the build checks that they
// match): bits 0-2 the kind of the message (or PARSE_FAILED); then whether
// jsonrpc is "2.0"; the id's kind + 1 (0: absent); a method; the params'
// kind + 1; a result; an error; whether it came as JSON text; why text was
// not read; a batch's member, and the end of a batch's members.
const NUMBER = 2;
const ARRAY = 4;
const OBJECT = 5;
const PARSE_FAILED = 7;
const VERSION_2 = 1 << 3;
const ID_SHIFT = 4;
const METHOD = 1 << 7;
const PARAMS_SHIFT = 8;
const PARAMS_MASK = 7 << PARAMS_SHIFT;
const RESULT = 1 << 11;
const ERROR = 1 << 12;
const TEXT = 1 << 13;
const TOO_LARGE = 1 << 14;
const TOO_DEEP = 1 << 15;
const NOT_TEXT = 1 << 16;
const MEMBER = 1 << 17;
const MEMBERS_END = 1 << 18;

// An endpoint's message handler: parses JSON text once, reads a message
// object's envelope, and hands it to wasm in one call to one of the
// module's own exports (`wasm`), for the endpoint it knows by `endpoint`:
// `wiggumReceive` takes any message whole; `wiggumCall` a message with
// neither result nor error, its id, method and params only (the method as
// the number the module remembers it by, from `names`, when it does);
// `wiggumAnswer` one with no method or params and one of result and error,
// its id and that value only. Each JS value that crosses costs a slot of
// the module's table of JS values, taken and given back: a call or an
// answer crosses with two or three instead of six.
//
// What the endpoint then has to do, when it is the one common thing, comes
// back as the export's value and is done here, with no crossing out: run
// the handler of a call (and post its result, if the endpoint says so when
// told it), or resolve the call an answer settles (see `served`, `settled`).
// (`traced`: the tracer sees every message whole, so all go to `wiggumReceive`.)
// Text past the endpoint's limits (`maxBytes` of UTF-8, `maxDepth` of
// nesting) is not parsed, and neither are bytes on a text transport (a
// WebSocket's binary frame); the core answers them.
export function envelopeReader(wasm, endpoint, hooks, transport, table, maxBytes, maxDepth, textTransport, traced) {
  const { wiggumReceive: receive, wiggumCall: call, wiggumAnswer: answer, wiggumDone: done } = wasm;
  const names = nameTables[table];
  // Call `n`'s handler runs: `n` is the call's number + 2^32 × the handler's.
  const served = (n, flags, id, params, number) => {
    const serving = n % 0x100000000;
    const result = invoke(hooks, (n - serving) / 0x100000000, params, serving);
    if (result !== undefined) {
      // 1 or 2: the endpoint leaves its answer to this, as an object or as text.
      const post = done(endpoint, serving, result, 0);
      if (post !== 0 && postOne(transport, post === 2, resultMessage(id, result), result) !== 0) {
        hooks.signal(UNSENT_ANSWER, flags, [id, result, number, takeSendFailure()]);
      }
    } else if (handlerThrew(hooks) !== 0) done(endpoint, serving, takeThrown(hooks), 1);
  };
  // Hands a message object (or a batch's member) over with its envelope
  // read: the members classification looks at, and their kinds.
  const readObject = (message, extra) => {
    const { id, method, params, result, error } = message;
    let flags = OBJECT | extra;
    if (message.jsonrpc === "2.0") flags |= VERSION_2;
    if (typeof id === "number") flags |= (NUMBER + 1) << ID_SHIFT;
    else if (id !== undefined) flags |= (kindOf(id) + 1) << ID_SHIFT;
    if (method !== undefined) flags |= METHOD;
    if (params !== undefined) flags |= ((Array.isArray(params) ? ARRAY : kindOf(params)) + 1) << PARAMS_SHIFT;
    // A structured clone keeps a member whose value is undefined: the Wiggum
    // spec's reference server answers a handler that returns nothing with
    // `{ result: undefined }`, and that is an answer (the caller gets undefined).
    // Only a message with neither method nor error is looked at again.
    if (result !== undefined || (method === undefined && error === undefined && "result" in message)) flags |= RESULT;
    if (error !== undefined) flags |= ERROR;
    // A numeric id travels as a number too: the core's id rule needs its value.
    const number = typeof id === "number" ? id : 0;
    const answers = flags & (RESULT | ERROR);
    if (traced) receive(endpoint, message, flags, id, method, params, result, error, number);
    else if (answers === 0) {
      const name = typeof method === "string" ? names.get(method) ?? -1 : -2;
      const n = call(endpoint, flags, id, method, params, number, name);
      if (n >= 2) served(n - 2, flags, id, params, number);
    } else if (answers !== (RESULT | ERROR) && (flags & (METHOD | PARAMS_MASK)) === 0) {
      // The number of the call it settles with its result, + 1 (0: the endpoint did what was needed).
      const settled = answer(endpoint, flags, id, answers === RESULT ? result : error, number);
      if (settled !== 0) resolveCall(hooks, settled - 1, result);
    } else receive(endpoint, message, flags, id, method, params, result, error, number);
  };
  const readMember = (member) => {
    if (member === null || typeof member !== "object" || Array.isArray(member)) receive(endpoint, undefined, MEMBER | kindOf(member));
    else readObject(member, MEMBER);
  };
  return (message) => {
    let text = 0;
    if (textTransport && (message instanceof ArrayBuffer || ArrayBuffer.isView(message))) {
      receive(endpoint, undefined, PARSE_FAILED | TEXT | NOT_TEXT);
      return;
    }
    if (typeof message === "string") {
      const refused = textRefused(message, maxBytes, maxDepth);
      if (refused !== 0) {
        receive(endpoint, undefined, PARSE_FAILED | TEXT | refused);
        return;
      }
      try {
        message = JSON.parse(message);
      } catch {
        receive(endpoint, undefined, PARSE_FAILED | TEXT);
        return;
      }
      text = TEXT;
    }
    if (Array.isArray(message)) {
      // A batch: when the endpoint asks for them (1), its members' envelopes,
      // one call each, then the end of the batch.
      if (receive(endpoint, message, ARRAY | text, undefined, undefined, undefined, undefined, undefined, message.length) !== 1) return;
      for (const member of message) readMember(member);
      receive(endpoint, undefined, MEMBERS_END);
      return;
    }
    if (message === null || typeof message !== "object") {
      receive(endpoint, message, kindOf(message) | text);
      return;
    }
    readObject(message, text);
  };
}

// TOO_LARGE, TOO_DEEP, or 0. Each UTF-16 unit is 1 to 3 bytes of UTF-8, so
// only text between maxBytes / 3 and maxBytes units is counted; and text of
// fewer than 2 × maxDepth units cannot nest that deep, so most is never scanned.
function textRefused(text, maxBytes, maxDepth) {
  const units = text.length;
  if (units > maxBytes) return TOO_LARGE;
  if (units * 3 > maxBytes && utf8Length(text) > maxBytes) return TOO_LARGE;
  if (units <= 2 * maxDepth) return 0;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < units; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92) i++; // a backslash: skip what it escapes
      else if (c === 34) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 91 || c === 123) {
      if (++depth > maxDepth) return TOO_DEEP;
    } else if (c === 93 || c === 125) depth--;
  }
  return 0;
}

function utf8Length(text) {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    bytes += c < 0x80 ? 1 : c < 0x800 ? 2 : c >= 0xd800 && c < 0xdc00 ? (i++, 4) : 3;
  }
  return bytes;
}

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

// The common call, opened and its request posted in one crossing: its
// promise. When the transport throws, the endpoint hears of it at once
// (UNSENT), and the call settles as the endpoint decides.
export function sendCall(hooks, transport, text, method, params, id, onChunk, onProgress) {
  const promise = openCall(hooks, id, method, onChunk, onProgress);
  if (postOne(transport, text, requestMessage(method, params, id), params) !== 0) {
    hooks.signal(UNSENT, id, [method, params, takeSendFailure()]);
  }
  return promise;
}

// The promise of the call the module just made, for the class to return.
export function opened(hooks, promise) {
  hooks.opened = promise;
}

// The two ways a call settles, each its own import: the module calls them
// directly, with no conversion shim between (a flag argument would need one).
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

// Fails a call that ended on this side; the message names its method.
export function fail(hooks, id, code, what, data) {
  const call = hooks.calls.get(id);
  if (call === undefined) return;
  rejectCall(hooks, id, new RPCError(code, `${what}: ${call.method}`, data === undefined ? call.abortReason : data));
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
