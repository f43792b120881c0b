// The JS side of the module's narrow numeric ABI (src/bindings): the one
// table of JS values the module names by handle, the functions it imports
// (through wasm-bindgen's shims, which the build links to these), the views
// of its memory, the event loop that carries out what each export call
// leaves in its memory (`run`). Each endpoint's message reader is
// reader.js; the numbers are numbers.js's.

import { RPCError, chunk, describeError, encodable as encodableAs, progress, receivedError, rejectCall, resolveCall } from "./glue.js";
import { abortHandlers, arm, invoke, mayStream, notifyHandler, sessionEnded, takeThrown } from "./serving.js";
import { Transfer, post } from "./wire.js";
import { extensions } from "./extensions.js";
import {
  E_SEND, E_INVOKE, E_NOTIFY, E_SETTLED, E_PROGRESS, E_CHUNK, E_CANCELLED, E_EXPIRED, E_MAY_STREAM, E_WATCH,
  E_SESSION_ENDED, E_FLUSH, E_UNHANDLED, E_IDLE, E_ARM, E_UNDELIVERED, M_REQUEST, M_NOTIFICATION, M_RESULT,
  M_ERROR, M_CANCEL, M_CHUNK, M_END, M_CREDIT, M_PROGRESS, M_READY, M_ACK, FLUSH, E_HANDED, M_KEPT,
  T_CLOSE, T_REJECT, T_RESOLVE, T_WAITING,
} from "./numbers.js";

// `WITH_REFERENCES`: whether this build's module takes references (Cargo
// feature `references`); scripts/glue.mjs defines it, so that the glue of a
// module without them carries none of their code. `WITH_HANDOFF` likewise:
// the Node build's module hands sessions between processes (handoff.js).

// ---- the table of JS values ----
// Handle 0 is undefined ("none"); the module counts its references in its
// own memory and lists the handles it let go (`FREED`), which are cleared
// here once the events naming them have been carried out.
export const vals = [undefined];
const free = [];
export function put(value) {
  if (free.length !== 0) {
    const h = free.pop();
    vals[h] = value;
    return h;
  }
  return vals.push(value) - 1;
}
// A handle, or 0 for undefined (absent).
export const opt = (value) => (value === undefined ? 0 : put(value));
/** Values the table holds now (a leak check). */
export const liveHandles = () => vals.length - 1 - free.length;

// Kinds, in the order of the core's `Kind`. A transfer() marker is the kind
// of what it carries (what goes on the wire).
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

// ---- the module and its memory ----
// Its exports (`#[wasm_bindgen]` functions of numbers), called as they are:
// wasm-bindgen's JS wrappers of them would add only a call (and `>>> 0`),
// so nothing imports them and the bundle leaves them out. Each is named
// here with a `$` before the module's name for it (`x.$recv`): the build
// gives each a short name, in the .wasm and in this JS alike
// (scripts/glue.mjs, `shortNames`), and `$` marks what it renames.
export let x;
let memory;
let heapBase = 0;
let H; // the header (src/bindings/mod.rs)
export let F64;
let U8;
let U32;
let hdrAt = 0;
const encoder = new TextEncoder();
const decoder = new TextDecoder();

// A grown memory detaches the old buffer (its views' length becomes 0):
// cheaper to ask than `memory.buffer`.
function views() {
  if (H === undefined || H.length === 0) {
    U8 = new Uint8Array(memory.buffer);
    F64 = new Float64Array(memory.buffer);
    U32 = new Uint32Array(memory.buffer);
    H = new Uint32Array(memory.buffer, hdrAt, 12);
  }
}

// Text of `len` bytes at `at`.
function utf8(at, len) {
  views();
  return decoder.decode(U8.subarray(at, at + len));
}
// The core's own names (members, methods) are static data: decoded once.
const names = new Map();
function name(at, len) {
  if (at >= heapBase) return utf8(at, len);
  const key = at * 65536 + len;
  let s = names.get(key);
  if (s === undefined) names.set(key, (s = utf8(at, len)));
  return s;
}
// A string of the events (its offset in `STR`), or the scratch buffer's first `len` bytes.
export const str = (at, len) => utf8(H[6] + at, len);
export const scratchText = (len) => utf8(H[7], len);
/** The refusal a `request` or `notify` returned (`code`), its message in the scratch buffer. */
export const refusal = (code) => receivedError(code, scratchText(H[8]));
/** The limits of the endpoint `open` just opened: [message bytes, depth]. */
export const openedLimits = () => [H[9], H[10]];

/** Writes texts one after another into the module's scratch buffer: their lengths in bytes. */
export function scratch(texts) {
  const bytes = texts.map((text) => encoder.encode(text));
  const at = x.$scratch(bytes.reduce((sum, one) => sum + one.length, 0));
  views();
  let offset = at;
  for (const one of bytes) {
    U8.set(one, offset);
    offset += one.length;
  }
  return bytes.map((one) => one.length);
}

// Whether values are encoded as JSON text for the endpoint being served
// (the module's `describe` and `encodable` ask; set before each call that may).
let asText = false;
export function speaking(text) {
  asText = text;
}

// ---- what the module imports ----
// The Rust imports them from `./wiggum_rpc_glue.js` through wasm-bindgen
// (src/bindings/value.rs); the build resolves that module to this one, and
// wasm-bindgen's glue (its shims) calls them (scripts/glue.mjs).
export const now = () => performance.now();
export const kind = (h) => kindOf(vals[h]);
// Member `name` (at `at`, `len` bytes) of value `h`, if it is an object: undefined otherwise.
function memberOf(h, at, len) {
  const v = vals[h];
  if (v === null || typeof v !== "object" || Array.isArray(v)) return undefined;
  try {
    return v[name(at, len)];
  } catch {
    // A getter that throws (a custom transport's object) reads as absent: nothing may unwind through the module.
    return undefined;
  }
}
export function member(h, at, len) {
  const m = memberOf(h, at, len);
  return m === undefined ? 0 : put(m);
}
export function text(h, at, cap) {
  const v = vals[h];
  if (typeof v !== "string") return -1;
  views();
  const { read, written } = encoder.encodeInto(v, U8.subarray(at, at + cap));
  return read < v.length ? -2 - v.length * 3 : written;
}
export const num = (h) => (typeof vals[h] === "number" ? vals[h] : NaN);
export function num_member(h, at, len) {
  const m = memberOf(h, at, len);
  return typeof m === "number" ? m : NaN;
}
export const boolean = (h) => (typeof vals[h] === "boolean" ? +vals[h] : -1);
export const count = (h) => (Array.isArray(vals[h]) ? vals[h].length : -1);
export function elements(h, at) {
  const hs = vals[h].map(put);
  views();
  U32.set(hs, at >>> 2);
}
export const is_v2 = (h) => +(vals[h] === "2.0");
export const object_of = (at, len, h) => put({ [name(at, len)]: vals[h] });
export const empty_array = () => put([]);
export const new_number = (n) => put(n);
export const new_string = (at, len) => put(name(at, len));
export const new_object = () => put({});
export const new_null = () => put(null);
export function with_member(h, at, len, m) {
  const v = vals[h];
  return put(v !== null && typeof v === "object" && !Array.isArray(v) ? { ...v, [name(at, len)]: vals[m] } : v);
}
export function set_true(h, at, len) {
  vals[h][name(at, len)] = true;
}
export const same = (a, b) => +Object.is(vals[a], vals[b]);
// Method names numbered for the module (at most MAX_NAMES: a peer cannot
// grow it past that): it reads a name's text once, then knows it by number.
const methodNames = new Map();
const MAX_NAMES = 1024;
export function name_of(h) {
  const name = vals[h];
  if (typeof name !== "string") return -1;
  const known = methodNames.get(name);
  if (known !== undefined) return known;
  if (methodNames.size === MAX_NAMES) return -1;
  methodNames.set(name, methodNames.size);
  return -1 - methodNames.size;
}
export const describe = (h, stack) => opt(describeError(vals[h], stack !== 0, asText));
export const encodable = (h) => +encodableAs(vals[h], asText);

/** Takes the instantiated module's exports (each build's entry calls it once). */
export function start(exports) {
  x = exports;
  memory = x.memory;
  hdrAt = x.$hdr();
  views();
  heapBase = H[11];
}

// ---- what the endpoints asked for ----
// Each endpoint's JS state by its number (endpoints.js makes it), and the
// numbers of those destroyed, forgotten once their last events are done.
export const endpoints = [];
const closing = [];
let running = false;

/** Forgets endpoint `ep` once the events in hand are carried out. */
export function closeLater(ep) {
  closing.push(ep);
  if (!running) run();
}

/**
 * Carries out the events the exports left, in order; a handler that runs
 * here and calls an export appends to them, and the outermost call loops
 * (a batch of 10,000 synchronous handlers costs one stack frame).
 */
export function run() {
  if (running) return;
  running = true;
  try {
    views();
    while (H[4] < H[1]) {
      // The buffer may move while an event is carried out (a handler that calls an export).
      const base = H[0] / 8;
      const next = carryOut(base + H[4]) - base;
      views();
      H[4] = next;
    }
  } finally {
    running = false;
    views();
    const at = H[2] >>> 2;
    for (let i = H[5]; i < H[3]; i++) {
      const h = U32[at + i];
      vals[h] = undefined;
      free.push(h);
    }
    H[5] = H[3];
    while (closing.length !== 0) {
      const ep = closing.pop();
      x.$tell(ep, T_CLOSE);
      endpoints[ep] = undefined;
    }
  }
}

const JSONRPC = "2.0";
// The message of an E_SEND at word `w`; `after` is then the word after it.
let after = 0;
// The ids and methods of the requests among the messages built, when a
// observer or a transport that follows calls (`settled`) wants them.
const requestIds = [];
let following = false;
let answering = false;
// What the messages being built move with them: the lists of their
// transfer() markers, each unwrapped as its message is built (undefined while none).
let moved;
function payload(value) {
  // Most payloads are no plain object: told apart before `instanceof` walks their prototypes.
  if (typeof value !== "object" || value === null || Array.isArray(value) || !(value instanceof Transfer)) return value;
  (moved ??= []).push(...value.transfer);
  return value.value;
}
function message(w) {
  const v = (i) => vals[F64[w + i]];
  switch (F64[w]) {
    case M_REQUEST: {
      const id = F64[w + 1];
      const method = v(2);
      const params = payload(v(3));
      const meta = v(4);
      after = w + 5;
      if (following) requestIds.push(id, method);
      const request = params === undefined ? { jsonrpc: JSONRPC, method, id } : { jsonrpc: JSONRPC, method, params, id };
      if (meta !== undefined) request.meta = meta;
      return request;
    }
    case M_NOTIFICATION: {
      const method = v(1);
      const params = payload(v(2));
      after = w + 3;
      return params === undefined ? { jsonrpc: JSONRPC, method } : { jsonrpc: JSONRPC, method, params };
    }
    case M_RESULT: {
      const result = payload(v(2));
      after = w + 3;
      answering = true;
      return { jsonrpc: JSONRPC, result: result === undefined ? null : result, id: F64[w + 1] === 0 ? null : v(1) };
    }
    case M_ERROR: {
      const data = v(5);
      const error = data === undefined ? { code: F64[w + 2], message: str(F64[w + 3], F64[w + 4]) }
        : { code: F64[w + 2], message: str(F64[w + 3], F64[w + 4]), data };
      after = w + 6;
      answering = true;
      return { jsonrpc: JSONRPC, error, id: F64[w + 1] === 0 ? null : v(1) };
    }
    case M_CANCEL: {
      const mcp = F64[w + 2] === 1;
      after = w + 3;
      return { jsonrpc: JSONRPC, method: mcp ? "notifications/cancelled" : "$/cancelRequest", params: { [mcp ? "requestId" : "id"]: F64[w + 1] } };
    }
    case M_CHUNK:
      after = w + 3;
      return { jsonrpc: JSONRPC, method: "stream.chunk", params: { id: v(1), chunk: v(2) } };
    case M_END:
      after = w + 2;
      return { jsonrpc: JSONRPC, method: "stream.end", params: { id: v(1) } };
    case M_CREDIT:
      after = w + 3;
      return { jsonrpc: JSONRPC, method: "stream.credit", params: { id: F64[w + 1], credit: F64[w + 2] } };
    case M_PROGRESS:
      after = w + 3;
      return { jsonrpc: JSONRPC, method: F64[w + 2] === 1 ? "notifications/progress" : "$/progress", params: payload(v(1)) };
    case M_READY: {
      const b = (i) => F64[w + i] === 1;
      const params = { ack: b(1), batches: b(2), splitBatchAnswers: b(3), maxBatch: F64[w + 4], streamCredit: b(5), progress: b(6) };
      if (F64[w + 8] >= 0) params.presence = str(F64[w + 7], F64[w + 8]);
      if (F64[w + 9] === 1) {
        const session = F64[w + 11] >= 0 ? { id: str(F64[w + 10], F64[w + 11]), received: F64[w + 12] } : { received: F64[w + 12] };
        if (F64[w + 13] >= 0) session.resumed = b(13);
        if (F64[w + 14] >= 0) session.grace = F64[w + 14];
        params.session = session;
      }
      if (F64[w + 15] === 1) params.packed = true;
      if (F64[w + 16] === 1) params.meta = true;
      after = w + 17;
      return { jsonrpc: JSONRPC, method: "$/ready", params };
    }
    default:
      // A handed session's message, as it was on the wire.
      if (WITH_HANDOFF && F64[w] === M_KEPT) {
        after = w + 2;
        return v(1);
      }
      // A message of references': only a module built with them writes one (references.js reads it).
      if (WITH_REFERENCES && F64[w] !== M_ACK) return extensions.referenceOps.message(w, message);
      after = w + 2;
      return { jsonrpc: JSONRPC, method: "$/ack", params: { received: F64[w + 1] } };
  }
}
// The `n` messages at `after`, all calls or all results (the core's
// `Transmit::packs`), as one object of parallel arrays: the packed form of
// a batch (src/core/wire.rs, `PACKED`), which a structured clone copies
// several times faster than as many objects.
function packedBatch(n) {
  const id = [];
  if (F64[after] === M_REQUEST) {
    const method = [];
    const params = [];
    const meta = [];
    let metas = false;
    for (let i = 0; i < n; i++) {
      const w = after;
      id.push(F64[w + 1]);
      method.push(vals[F64[w + 2]]);
      params.push(payload(vals[F64[w + 3]]));
      meta.push(vals[F64[w + 4]]);
      metas ||= F64[w + 4] !== 0;
      if (following) requestIds.push(F64[w + 1], vals[F64[w + 2]]);
      after = w + 5;
    }
    return metas ? { jsonrpc: JSONRPC, packed: "calls", id, method, params, meta } : { jsonrpc: JSONRPC, packed: "calls", id, method, params };
  }
  const result = [];
  for (let i = 0; i < n; i++) {
    const w = after;
    id.push(vals[F64[w + 1]]);
    const value = payload(vals[F64[w + 2]]);
    result.push(value === undefined ? null : value);
    after = w + 3;
  }
  answering = true;
  return { jsonrpc: JSONRPC, packed: "results", id, result };
}

/** Where the message being read ends (the word after it). */
export function ended(w) {
  after = w;
}

// How a call of this side's failed (E_SETTLED's kind 2-6): its observer event and error.
const TIMED_OUT = [-32099, "Request timed out"];
const FAILED = [
  undefined,
  undefined,
  ["timeout", TIMED_OUT],
  ["timeout", [-32099, "Request timed out before it could be sent: no hello from the other side (or its frame never loaded)"]],
  ["cancel", [-32800, "Request aborted"]],
  ["destroyed"],
  ["connection-closed"],
];
export const destroyedError = () => new RPCError(-32098, "The endpoint was destroyed");

// Settles call `id` of this side's (its record is in `hooks.calls`).
function settle(hooks, id, w) {
  const kind = F64[w];
  if (kind === 0) return resolveCall(hooks, id, vals[F64[w + 1]]);
  if (kind === 1) return rejectCall(hooks, id, receivedError(F64[w + 1], str(F64[w + 2], F64[w + 3]), vals[F64[w + 4]]));
  const failure = FAILED[kind][1];
  if (kind === 5) return rejectCall(hooks, id, destroyedError());
  if (kind === 6) return rejectCall(hooks, id, new RPCError(-32095, "Connection closed"));
  const call = hooks.calls.get(id);
  if (call !== undefined) rejectCall(hooks, id, new RPCError(failure[0], `${failure[1]}: ${call.method}`, call.abortReason));
}

// Tells the transport something through one of its hooks (`settled`,
// `idle`, `watch`), if it has it: what a hook throws is not the endpoint's to handle.
function tell(hook, transport, value) {
  try {
    if (typeof hook === "function") hook.call(transport, value);
  } catch {
    // Ignored, as the transport's own failure.
  }
}

// Carries out the event at word `w` (for an endpoint forgotten: skips it); returns the word after it.
function carryOut(w) {
  const ep = F64[w + 1];
  const hooks = endpoints[ep];
  switch (F64[w]) {
    case E_SEND: {
      const sent = F64[w + 2];
      const n = F64[w + 3];
      const packed = F64[w + 4] === 1;
      after = w + 5;
      following = hooks !== undefined && (hooks.observer !== undefined || hooks.settled !== undefined);
      if (following) requestIds.length = 0;
      answering = false;
      moved = undefined;
      let out;
      if (n === 0) out = message(after);
      else if (packed) out = packedBatch(n);
      else {
        out = [];
        for (let i = 0; i < n; i++) out.push(message(after));
      }
      const next = after;
      if (hooks !== undefined) send(hooks, out, sent, following ? requestIds : NONE, answering, moved);
      return next;
    }
    case E_INVOKE: {
      if (hooks !== undefined) serve(hooks, F64[w + 2], F64[w + 3], vals[F64[w + 4]], vals[F64[w + 5]]);
      return w + 6;
    }
    case E_NOTIFY:
      if (hooks !== undefined) notifyHandler(hooks, F64[w + 2], vals[F64[w + 3]]);
      return w + 4;
    case E_SETTLED: {
      const id = F64[w + 2];
      if (hooks !== undefined) {
        // The observer hears of a call that ended without an answer, then the transport that follows calls.
        if (F64[w + 4] >= 2) hooks.observer?.failed(FAILED[F64[w + 4]][0], id, hooks, undefined);
        if (id !== 0) tell(hooks.settled, hooks.transport, id);
        settle(hooks, id, w + 4);
      }
      return w + 9;
    }
    case E_PROGRESS:
      if (hooks !== undefined) progress(hooks, F64[w + 2], vals[F64[w + 4]]);
      return w + 5;
    case E_CHUNK:
      if (hooks !== undefined) chunk(hooks, F64[w + 2], vals[F64[w + 4]]);
      return w + 5;
    case E_CANCELLED:
      if (hooks !== undefined) abortHandlers(hooks, F64[w + 2], new RPCError(-32800, "Request cancelled"));
      return w + 3;
    case E_EXPIRED:
      // The call has been answered: its caller's deadline passed (1), or its params' check took too long.
      if (hooks !== undefined) {
        if (F64[w + 3] === 1) abortHandlers(hooks, F64[w + 2], new RPCError(-32099, "Deadline exceeded"));
        else {
          hooks.observer?.local("check-timeout", undefined, undefined, undefined);
          abortHandlers(hooks, F64[w + 2], new RPCError(-32603, "Params validation timed out"));
        }
      }
      return w + 4;
    case E_MAY_STREAM:
      if (hooks !== undefined) mayStream(hooks, F64[w + 2]);
      return w + 3;
    case E_WATCH:
      // The transport watches the other side's presence and emits `close` when it goes.
      if (hooks !== undefined) tell(hooks.transport.watch, hooks.transport, str(F64[w + 2], F64[w + 3]));
      return w + 4;
    case E_SESSION_ENDED:
      // A listener may destroy this endpoint (a hub forgets the client): told after this task's work.
      if (hooks !== undefined) sessionEnded(hooks.transport);
      return w + 2;
    case E_FLUSH:
      if (hooks !== undefined) queueMicrotask(() => hooks.signal(FLUSH, 0));
      return w + 2;
    case E_UNHANDLED:
      hooks?.observer?.local("unhandled-notification", undefined, str(F64[w + 2], F64[w + 3]), undefined);
      return w + 4;
    case E_IDLE:
      if (hooks !== undefined) tell(hooks.transport.idle, hooks.transport);
      return w + 2;
    case E_ARM:
      if (hooks !== undefined) arm(hooks, F64[w + 2], F64[w + 3]);
      return w + 4;
    case E_UNDELIVERED:
      // `hooks.undelivered`: the transport's event that said so (endpoints.js keeps it for this).
      hooks?.observer?.local("undelivered", F64[w + 2], undefined, hooks.undelivered);
      return w + 3;
    default:
      if (WITH_HANDOFF && F64[w] === E_HANDED) return handed(w, hooks);
      // An event of references' (references.js, in a build that has them); or
      // unknown: the layout differs from this file's, stop rather than misread.
      return (WITH_REFERENCES ? extensions.referenceOps?.carryOut(w, hooks) : undefined) ?? H[0] / 8 + H[1];
  }
}

// The session `hand_off` took out (E_HANDED at word `w`), in its JSON form
// (src/core/endpoint/handoff.rs), for the endpoint's `handOff()` to return.
function handed(w, hooks) {
  const sends = (n) => {
    const out = [];
    for (let i = 0; i < n; i++) {
      const count = F64[after++];
      if (count === 0) out.push(message(after));
      else {
        const batch = [];
        for (let j = 0; j < count; j++) batch.push(message(after));
        out.push(batch);
      }
    }
    return out;
  };
  const at = (i) => F64[w + i];
  const session = { id: str(at(7), at(8)), grace: at(4), maxKept: at(5), sent: at(2), received: at(3), nextCall: at(6) };
  after = w + 11;
  following = false;
  session.unacked = sends(at(9));
  session.held = sends(at(10));
  if (hooks !== undefined) hooks.handed = session;
  return after;
}

// Posts what went out (event `sent`): the observer sees the calls this side
// times; a transport that follows calls is told their ids; a refusal (a
// DataCloneError, a closed socket) goes back to the core, which decides.
const NONE = [];
function send(hooks, out, sent, ids, answers, transfer) {
  const { observer, transport } = hooks;
  if (observer !== undefined) {
    for (let i = 0; i < ids.length; i += 2) if (x.$tell(hooks.endpoint, T_WAITING, 0, ids[i]) !== 0) observer.sent(ids[i], ids[i + 1]);
  }
  let calls;
  if (hooks.settled !== undefined) {
    calls = [];
    for (let i = 0; i < ids.length; i += 2) calls.push(ids[i]);
  }
  try {
    post(transport, hooks.text, out, observer, calls, transfer);
  } catch (failure) {
    if (answers) observer?.local("unsendable-answer", undefined, undefined, failure);
    const reason = failure instanceof Error ? `${failure.name}: ${failure.message}` : String(failure);
    speaking(hooks.text);
    const unsent = x.$transmit_failed(sent, put(reason));
    if (unsent !== 0) {
      observer?.failed("send-failed", unsent, hooks, failure);
      rejectCall(hooks, unsent, new RPCError(-32096, `Request could not be sent: ${reason}`, failure));
    }
  }
}

/**
 * Answers call `call` with `value`: a result that holds references (the
 * entry's scan) has them introduced first, or is answered with why not.
 */
export function resolved(hooks, call, value) {
  if (WITH_REFERENCES) {
    try {
      value = extensions.references?.scan(hooks, value) ?? value;
    } catch (error) {
      x.$tell(hooks.endpoint, T_REJECT, call, put(error));
      return;
    }
  }
  x.$tell(hooks.endpoint, T_RESOLVE, call, opt(value));
}

// Runs a handler for call `call` (`meta`: the caller's metadata, or
// undefined): its outcome goes back with `complete` now, or later through
// `hooks.signal` (a promise).
function serve(hooks, call, handler, params, meta) {
  const result = invoke(hooks, handler, params, call, meta);
  speaking(hooks.text);
  if (result !== undefined) resolved(hooks, call, result);
  else if (hooks.threw) {
    hooks.threw = false;
    x.$tell(hooks.endpoint, T_REJECT, call, put(takeThrown(hooks)));
  }
}
