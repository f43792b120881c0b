// SPIKE (measurement only): wiggum-rpc's core behind a plain numeric ABI,
// no wasm-bindgen. One JS table of values named by u32 handles; the
// module's imports answer the core's questions about them; each export
// leaves what the endpoint wants done as f64 words in linear memory, carried
// out here after it returns (`run`). See src/raw/mod.rs for the layout.
//
// What this driver carries: Peer (request, notify, method, onNotify,
// destroy) over a MessagePort, the `$/ready` hello, batches both ways,
// timeouts, errors as RPCError (thrown errors described whole), send
// failures. Left out (the wasm keeps them): see spike/README.md.

export class RPCError extends Error {
  constructor(code, message, data) {
    super(message);
    this.name = "RPCError";
    this.code = code;
    if (data !== undefined) this.data = data;
  }
}

// ---- the handle table ----
const vals = [undefined];
const free = [];
const put = (value) => {
  if (free.length !== 0) {
    const h = free.pop();
    vals[h] = value;
    return h;
  }
  return vals.push(value) - 1;
};
/** Values the table holds now (a leak check). */
export const liveHandles = () => vals.length - 1 - free.length;
const opt = (value) => (value === undefined ? 0 : put(value));

const kindOf = (value) => {
  if (value === null) return 0;
  switch (typeof value) {
    case "boolean": return 1;
    case "number": return 2;
    case "string": return 3;
    case "object": return Array.isArray(value) ? 4 : 5;
    default: return 6;
  }
};

const encodable = (value) => {
  try {
    structuredClone(value);
    return true;
  } catch {
    return false;
  }
};

// ---- the module ----
let x; // exports
let memory;
let heapBase = 0;
let H; // the header, Uint32Array
let F64;
let U8;
let U32;
const encoder = new TextEncoder();
const decoder = new TextDecoder();

// A grown memory detaches the old buffer (its views' length becomes 0):
// cheaper to ask than `memory.buffer`.
const views = () => {
  if (H === undefined || H.length === 0) {
    U8 = new Uint8Array(memory.buffer);
    F64 = new Float64Array(memory.buffer);
    U32 = new Uint32Array(memory.buffer);
    H = new Uint32Array(memory.buffer, hdrAt, 8);
  }
};
let hdrAt = 0;

// Text of `len` bytes at `at` (ASCII without a decoder call).
const utf8 = (at, len) => {
  views();
  if (len < 32) {
    let s = "";
    for (let i = at; i < at + len; i++) {
      const c = U8[i];
      if (c >= 0x80) return decoder.decode(U8.subarray(at, at + len));
      s += String.fromCharCode(c);
    }
    return s;
  }
  return decoder.decode(U8.subarray(at, at + len));
};
// The core's own names (member names, methods) are static: decoded once.
const names = new Map();
const name = (at, len) => {
  if (at >= heapBase) return utf8(at, len);
  const key = at * 65536 + len;
  let s = names.get(key);
  if (s === undefined) names.set(key, (s = utf8(at, len)));
  return s;
};
const str = (at, len) => utf8(H[6] + at, len);

const imports = {
  w: {
    now: () => performance.now(),
    kind: (h) => kindOf(vals[h]),
    member: (h, at, len) => {
      const v = vals[h];
      if (v === null || typeof v !== "object" || Array.isArray(v)) return 0;
      const m = v[name(at, len)];
      return m === undefined ? 0 : put(m);
    },
    text: (h, at, cap) => {
      const v = vals[h];
      if (typeof v !== "string") return -1;
      views();
      const { read, written } = encoder.encodeInto(v, U8.subarray(at, at + cap));
      return read < v.length ? -2 - v.length * 3 : written;
    },
    num: (h) => (typeof vals[h] === "number" ? vals[h] : NaN),
    boolean: (h) => (typeof vals[h] === "boolean" ? +vals[h] : -1),
    count: (h) => (Array.isArray(vals[h]) ? vals[h].length : -1),
    elements: (h, at) => {
      const v = vals[h];
      const hs = v.map(put);
      views();
      U32.set(hs, at >>> 2);
    },
    is_v2: (h) => +(vals[h] === "2.0"),
    object_of: (at, len, h) => put({ [name(at, len)]: vals[h] }),
    empty_array: () => put([]),
    new_number: (n) => put(n),
    new_string: (at, len) => put(name(at, len)),
    new_object: () => put({}),
    new_null: () => put(null),
    with_member: (h, at, len, m) => {
      const v = vals[h];
      return put(v !== null && typeof v === "object" && !Array.isArray(v) ? { ...v, [name(at, len)]: vals[m] } : v);
    },
    set_true: (h, at, len) => {
      vals[h][utf8(at, len)] = true;
    },
    same: (a, b) => +Object.is(vals[a], vals[b]),
    describe: (h, stack) => opt(describeError(vals[h], stack !== 0)),
    encodable: (h) => +encodable(vals[h]),
  },
};

/** Instantiates the module (bytes or a compiled WebAssembly.Module). */
export async function init(source) {
  const made = await WebAssembly.instantiate(source, imports);
  x = (made.instance ?? made).exports;
  memory = x.memory;
  heapBase = x.__heap_base?.value ?? 0;
  hdrAt = x.hdr();
  views();
}

// ---- what the endpoints asked for ----
const endpoints = [];
// This side's calls, by waiter number.
const calls = [];
const freeCalls = [];
let running = false;

// Carries out the events the exports left, in order; a handler that runs
// here and calls an export appends to them. The outermost call loops.
function run() {
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
  }
}

const JSONRPC = "2.0";
// One message of an E_SEND at word `w`; `after` is then the word after it.
let after = 0;
function message(w) {
  const v = (i) => vals[F64[w + i]];
  switch (F64[w]) {
    case 1: {
      const params = v(3);
      const method = v(2);
      const id = F64[w + 1];
      after = w + 4;
      return params === undefined ? { jsonrpc: JSONRPC, method, id } : { jsonrpc: JSONRPC, method, params, id };
    }
    case 2: {
      const params = v(2);
      const method = v(1);
      after = w + 3;
      return params === undefined ? { jsonrpc: JSONRPC, method } : { jsonrpc: JSONRPC, method, params };
    }
    case 3: {
      const result = v(2);
      after = w + 3;
      return { jsonrpc: JSONRPC, result: result === undefined ? null : result, id: F64[w + 1] === 0 ? null : v(1) };
    }
    case 4: {
      const data = v(5);
      const error = { code: F64[w + 2], message: str(F64[w + 3], F64[w + 4]) };
      if (data !== undefined) error.data = data;
      after = w + 6;
      return { jsonrpc: JSONRPC, error, id: F64[w + 1] === 0 ? null : v(1) };
    }
    case 5: {
      const mcp = F64[w + 2] === 1;
      after = w + 3;
      return { jsonrpc: JSONRPC, method: mcp ? "notifications/cancelled" : "$/cancelRequest", params: { [mcp ? "requestId" : "id"]: F64[w + 1] } };
    }
    case 6: after = w + 3;
      return { jsonrpc: JSONRPC, method: "stream.chunk", params: { id: v(1), chunk: v(2) } };
    case 7: after = w + 2;
      return { jsonrpc: JSONRPC, method: "stream.end", params: { id: v(1) } };
    case 8: after = w + 3;
      return { jsonrpc: JSONRPC, method: "stream.credit", params: { id: F64[w + 1], credit: F64[w + 2] } };
    case 9: after = w + 3;
      return { jsonrpc: JSONRPC, method: F64[w + 2] === 1 ? "notifications/progress" : "$/progress", params: v(1) };
    case 10: {
      const b = (i) => F64[w + i] === 1;
      const params = { ack: b(1), batches: b(2), splitBatchAnswers: b(3), maxBatch: F64[w + 4], streamCredit: b(5), progress: b(6) };
      if (F64[w + 8] >= 0) params.presence = str(F64[w + 7], F64[w + 8]);
      if (F64[w + 9] === 1) {
        const session = F64[w + 11] >= 0 ? { id: str(F64[w + 10], F64[w + 11]), received: F64[w + 12] } : { received: F64[w + 12] };
        if (F64[w + 13] >= 0) session.resumed = b(13);
        if (F64[w + 14] >= 0) session.grace = F64[w + 14];
        params.session = session;
      }
      after = w + 15;
      return { jsonrpc: JSONRPC, method: "$/ready", params };
    }
    default: after = w + 2;
      return { jsonrpc: JSONRPC, method: "$/ack", params: { received: F64[w + 1] } };
  }
}

const FAILED = [
  undefined,
  undefined,
  [-32099, "Request timed out"],
  [-32099, "Request timed out before it could be sent: the frame never loaded (or, with { handshake: \"wait\" }, never said hello)"],
  [-32800, "Request aborted"],
];

// Carries out the event at word `w`; returns the word after it.
function carryOut(w) {
  const endpoint = endpoints[F64[w + 1]];
  switch (F64[w]) {
    case 1: {
      const sent = F64[w + 2];
      const n = F64[w + 3];
      let out;
      after = w + 4;
      if (n === 1) out = message(after);
      else {
        out = [];
        for (let i = 0; i < n; i++) out.push(message(after));
      }
      const next = after;
      try {
        endpoint.port.postMessage(out);
      } catch (failure) {
        const waiter = x.transmit_failed(sent, put(failure instanceof Error ? `${failure.name}: ${failure.message}` : String(failure)));
        if (waiter !== 0) settleUnsent(waiter - 1, failure);
      }
      return next;
    }
    case 2: {
      const [ep, call, handler, params] = [F64[w + 1], F64[w + 2], F64[w + 3], vals[F64[w + 4]]];
      invoke(ep, endpoint.handlers[handler], params, call);
      return w + 5;
    }
    case 3: {
      try {
        endpoint.handlers[F64[w + 2]](vals[F64[w + 3]]);
      } catch {
        // A notification's errors are dropped, as the spec says.
      }
      return w + 4;
    }
    case 4: {
      const waiter = F64[w + 3];
      const call = calls[waiter];
      calls[waiter] = undefined;
      freeCalls.push(waiter);
      const kind = F64[w + 4];
      if (kind === 0) call.resolve(vals[F64[w + 5]]);
      else if (kind === 1) call.reject(receivedError(F64[w + 5], str(F64[w + 6], F64[w + 7]), vals[F64[w + 8]]));
      else if (kind === 5) call.reject(destroyed());
      else if (kind === 6) call.reject(new RPCError(-32095, "Connection closed"));
      else call.reject(new RPCError(FAILED[kind][0], `${FAILED[kind][1]}: ${call.method}`));
      return w + 9;
    }
    case 12: {
      const ep = F64[w + 1];
      queueMicrotask(() => {
        x.flush(ep);
        run();
      });
      return w + 2;
    }
    case 15: {
      const ep = F64[w + 1];
      const which = F64[w + 2];
      setTimeout(() => {
        x.timer(ep, which, performance.now());
        run();
      }, F64[w + 3]);
      return w + 4;
    }
    // Left out of this driver (progress, chunks, cancelled, check expired,
    // may stream, watch, session ended, unhandled): skipped.
    case 5: case 6: return w + 5;
    case 7: case 8: case 9: return w + 3;
    case 10: case 13: return w + 4;
    default: return w + 2;
  }
}

// The lone call the transport refused.
function settleUnsent(waiter, failure) {
  const call = calls[waiter];
  if (call === undefined) return;
  calls[waiter] = undefined;
  freeCalls.push(waiter);
  call.reject(new RPCError(-32096, `Request could not be sent: ${failure?.message ?? failure}`, failure));
}

const isThenable = (value) => value !== null && (typeof value === "object" || typeof value === "function") && typeof value.then === "function";

// Runs a method's handler; its outcome goes back with `complete`.
function invoke(ep, handler, params, call) {
  let result;
  try {
    result = handler(params);
  } catch (error) {
    x.complete(ep, call, 0, put(error));
    return;
  }
  if (!isThenable(result)) {
    x.complete(ep, call, 1, put(result === undefined ? null : result));
    return;
  }
  Promise.resolve(result).then(
    (value) => {
      x.complete(ep, call, 1, put(value === undefined ? null : value));
      run();
    },
    (error) => {
      x.complete(ep, call, 0, put(error));
      run();
    },
  );
}

// ---- the reader: a message's envelope read here, handed over in one call ----
const VERSION_2 = 1 << 3;
const METHOD = 1 << 7;
const RESULT = 1 << 11;
const ERROR = 1 << 12;

// Hands a message object (or a batch's member, `member`) over with its
// envelope read: the members classification looks at, and their kinds.
const methodNames = new Map();
function readObject(ep, message, member) {
  const { id, method, params, result, error } = message;
  let flags = 5;
  if (message.jsonrpc === "2.0") flags |= VERSION_2;
  if (id !== undefined) flags |= (kindOf(id) + 1) << 4;
  if (method !== undefined) flags |= METHOD;
  if (params !== undefined) flags |= (kindOf(params) + 1) << 8;
  if (result !== undefined || (method === undefined && error === undefined && "result" in message)) flags |= RESULT;
  if (error !== undefined) flags |= ERROR;
  const number = typeof id === "number" ? id : 0;
  if (member) x.member(ep, flags, opt(id), opt(method), opt(params), opt(result), opt(error), number);
  else {
    // A method's name the module has seen goes as its number: the core asks no import for it.
    const name = typeof method === "string" ? methodNames.get(method) ?? -1 : -2;
    const numbered = x.recv(ep, flags, opt(id), opt(method), opt(params), opt(result), opt(error), number, name);
    if (numbered !== 0) methodNames.set(method, numbered - 1);
  }
}

function read(ep, message) {
  if (Array.isArray(message)) {
    if (x.batch_begin(ep, message.length) === 1) {
      for (const one of message) {
        if (one === null || typeof one !== "object" || Array.isArray(one)) x.member(ep, kindOf(one), 0, 0, 0, 0, 0, 0);
        else readObject(ep, one, true);
      }
      x.members_end(ep);
    } else x.recv_value(ep, put(message), 0);
  } else if (message === null || typeof message !== "object") x.recv_value(ep, put(message), 0);
  else readObject(ep, message, false);
  run();
}

// ---- errors ----
const destroyed = () => new RPCError(-32098, "The endpoint was destroyed");

// A thrown error, whole, as plain data (glue.js's describeError).
const MAX_CAUSES = 16;
const MAX_ERRORS = 100;
const MAX_FIELDS = 50;
const OWN = new Set(["name", "message", "stack", "cause", "errors"]);

function describeError(thrown, withStack) {
  const seen = new Set();
  const get = (object, key) => {
    try {
      return object[key];
    } catch {
      return undefined;
    }
  };
  const carried = (value) => typeof value !== "function" && typeof value !== "symbol" && value !== undefined
    && (value === null || typeof value !== "object" || encodable(value));
  const describe = (error, depth) => {
    seen.add(error);
    const n = get(error, "name");
    const m = get(error, "message");
    const out = { name: typeof n === "string" ? n : "Error", message: typeof m === "string" ? m : String(m ?? "") };
    let keys = [];
    try {
      keys = Object.keys(error);
    } catch {
      // A proxy that refuses: no fields.
    }
    let fields = 0;
    for (const key of keys) {
      if (OWN.has(key) || fields >= MAX_FIELDS) continue;
      const value = get(error, key);
      if (carried(value)) {
        (out.fields ??= {})[key] = value;
        fields += 1;
      }
    }
    const cause = get(error, "cause");
    if (cause !== undefined && depth < MAX_CAUSES && !seen.has(cause)) {
      if (cause !== null && typeof cause === "object") out.cause = describe(cause, depth + 1);
      else if (carried(cause)) out.cause = cause;
    }
    const errors = get(error, "errors");
    if (Array.isArray(errors) && depth < MAX_CAUSES) {
      out.errors = errors.slice(0, MAX_ERRORS).map((one) =>
        one !== null && typeof one === "object" && !seen.has(one) ? describe(one, depth + 1) : carried(one) ? one : String(one));
    }
    const stack = withStack ? get(error, "stack") : undefined;
    if (typeof stack === "string") out.stack = stack;
    return out;
  };
  try {
    return describe(thrown, 0);
  } catch {
    return undefined;
  }
}

const described = (data) => data !== null && typeof data === "object" && typeof data.name === "string" && typeof data.message === "string";

function receivedError(code, message, data) {
  const error = new RPCError(code, message, data);
  if (described(data)) rebuildInto(error, data, 0);
  return error;
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

// Writes `text` into the module's scratch buffer: its length in bytes.
function scratch(text) {
  const bytes = encoder.encode(text);
  const at = x.scratch(bytes.length);
  views();
  U8.set(bytes, at);
  return bytes.length;
}

// ---- the class ----
const ANNOUNCE = 8;
const EXPOSE_STACK = 32;

/** Client and server on one MessagePort, both directions at once. */
export class Peer {
  #ep;
  #endpoint;

  constructor(port, options = {}) {
    const flags = (options.handshake === false ? 0 : ANNOUNCE) | (options.exposeStack === true ? EXPOSE_STACK : 0);
    const timeout = typeof options.timeout === "number" ? options.timeout : NaN;
    const ep = x.open(3, flags, timeout, 0, -1, -1, -1, -1, 0, 0, -1, -1, -1);
    this.#ep = ep;
    this.#endpoint = endpoints[ep] = { port, handlers: [], slots: new Map() };
    port.onmessage = (event) => read(ep, event.data);
    run();
  }

  /** Sends a request; resolves with its result, rejects with RPCError. */
  request(method, params, options) {
    if (typeof method !== "string") return Promise.reject(new TypeError("method must be a string"));
    const waiter = freeCalls.length !== 0 ? freeCalls.pop() : calls.length;
    let call;
    const promise = new Promise((resolve, reject) => {
      call = { method, resolve, reject };
    });
    calls[waiter] = call;
    const timeout = typeof options?.timeout === "number" ? options.timeout : NaN;
    const kind = params === undefined ? 0 : kindOf(params) + 1;
    x.request(this.#ep, put(method), opt(params), kind, waiter, timeout, 0, 0, NaN);
    run();
    return promise;
  }

  /** Sends a notification: no id, no response. */
  notify(method, params) {
    if (typeof method !== "string") throw new TypeError("method must be a string");
    const refused = x.notify(this.#ep, put(method), opt(params));
    run();
    if (refused !== 0) throw new RPCError(refused, "params must be an array or an object");
  }

  /** Registers the handler of a method: `(params) => result | Promise`. */
  method(name, handler) {
    this.#register(name, handler, 0);
  }

  /** Registers the handler of a notification. */
  onNotify(name, handler) {
    this.#register(name, handler, 1);
  }

  #register(name, handler, notification) {
    if (typeof name !== "string") throw new TypeError("name must be a string");
    if (typeof handler !== "function") throw new TypeError("handler must be a function");
    const { handlers, slots } = this.#endpoint;
    const key = `${notification}:${name}`;
    let n = slots.get(key);
    if (n === undefined) slots.set(key, (n = handlers.length));
    handlers[n] = handler;
    x.set_method(this.#ep, scratch(name), n, notification);
    run();
  }

  /** Calls still waiting for a response. */
  get pending() {
    return x.pending(this.#ep);
  }

  /** Rejects every pending call, stops serving, closes the port. */
  destroy() {
    const { port } = this.#endpoint;
    port.onmessage = null;
    x.destroy(this.#ep);
    run();
    try {
      port.close();
    } catch {
      // Closed already.
    }
    x.close(this.#ep);
    endpoints[this.#ep] = undefined;
  }
}
