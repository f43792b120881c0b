// The classes users see: `JSONRPCClient` (calls), `JSONRPCServer` (serves)
// and `Peer` (both). Each holds its endpoint's JS state (`hooks`), which
// names the endpoint by the number the module knows it by: its options are
// read here and cross as numbers (`open`), its transport's messages and
// events are subscribed here (`listen`), and what JS tells the endpoint
// later (a timer, a handler's outcome, an abort) goes through the state's
// one callback (`signalled`). What an entry adds to the classes
// (`remote()`, `stream()`, `expose()`) it adds to these prototypes; what
// plugs into every endpoint comes through extensions.js (`plugins`).

import {
  ABORT, ANNOUNCE, AWAIT, CALL_NO_RESET, CALL_PROGRESS, CHECKED, CHECKING, CHUNK, CLOSED, CONNECTING, CONSUMED, DEADLINE, EXPOSE_STACK, FLUSH, HOLD, IDLE, INVALID_PARAMS,
  INVALID_RESULT, JRPC_OO, MCP, OPENED, PACKED, PROGRESS, REJECTED, RESOLVED, TICK, UNDELIVERED,
  T_CANCEL, T_CHECKED, T_CHECKING, T_CONSUMED, T_DESTROY, T_EMIT, T_FLUSH, T_LOST, T_OPENED, T_PENDING, T_PROGRESS, T_REJECT,
  T_REJECT_PARAMS, T_REJECT_RESULT, T_SESSION_ID, T_SET_METHOD, T_SET_NOTIFICATION, T_TIMER,
} from "./numbers.js";
import { envelopeReader } from "./reader.js";
import {
  closeLater, destroyedError, endpoints, resolved,
  kindOf, openedLimits, opt, put, refusal, run, scratch, scratchText, speaking, x,
} from "./abi.js";
import { extensions, observerOf, wrapped } from "./extensions.js";
import { RPCError, countConsumed, openCall, watchAbort } from "./glue.js";
import { abortHandlers, addHandler, detach, retireHooks } from "./serving.js";
import { transfer } from "./wire.js";

const CALLS = 1;
const SERVES = 2;
const REQUEST_CANCELLED = -32800;

const isObject = (value) => value !== null && typeof value === "object";

// Carries out what JS tells endpoint `hooks` (see the numbers above); what
// it answers (CHUNK: whether the handler may go on), or undefined.
function signalled(hooks, what, n, value) {
  const ep = hooks.endpoint;
  let answer;
  switch (what) {
    case TICK:
    case DEADLINE:
      x.$tell(ep, T_TIMER, what, performance.now());
      break;
    case FLUSH:
      x.$tell(ep, T_FLUSH);
      break;
    case ABORT:
      x.$tell(ep, T_CANCEL, 0, n);
      break;
    case RESOLVED:
      resolved(hooks, n, value);
      break;
    case REJECTED:
      speaking(hooks.text);
      x.$tell(ep, T_REJECT, n, put(value));
      break;
    case CHUNK:
      answer = x.$tell(ep, T_EMIT, n, put(value)) !== 0;
      break;
    case CLOSED: {
      // A session goes on without its connection, unless the transport will open no other.
      const goesOn = x.$tell(ep, T_LOST, isObject(value) && value.final === true ? 1 : 0, performance.now()) !== 0;
      run();
      // Nobody is left to answer: running handlers may stop.
      if (!goesOn) abortHandlers(hooks, undefined, new RPCError(-32095, "Connection closed"));
      return undefined;
    }
    case OPENED:
      x.$tell(ep, T_OPENED);
      break;
    case CHECKING:
      x.$tell(ep, T_CHECKING, n, performance.now());
      break;
    case CHECKED:
      x.$tell(ep, T_CHECKED, n);
      break;
    case INVALID_PARAMS:
      x.$tell(ep, T_REJECT_PARAMS, n, put(value));
      break;
    case INVALID_RESULT:
      x.$tell(ep, T_REJECT_RESULT, n);
      break;
    case UNDELIVERED:
      undelivered(hooks, value);
      return undefined;
    case CONSUMED:
      x.$tell(ep, T_CONSUMED, 1, n);
      break;
    case PROGRESS:
      x.$tell(ep, T_PROGRESS, n, put(value));
      break;
    default:
  }
  run();
  return answer;
}

// The transport's `undelivered` event, `{ calls, reply?, reason, message,
// data? }`: the core decides what each call gets (the observer hears of each
// call failed so, with the event: `hooks.undelivered`).
function undelivered(hooks, detail) {
  const given = isObject(detail) ? detail : {};
  const why = given.reason === "not-json" ? 1 : given.reason === "session-expired" ? 2 : 0;
  hooks.undelivered = detail;
  x.$undelivered(hooks.endpoint, opt(given.calls), opt(given.message), opt(given.reply), why, opt(given.data));
  run();
}

// Subscribes the endpoint to its transport: each message to its reader,
// and its `close`, `open` and (a transport that follows calls) `undelivered`
// events. `detach(hooks)` (serving.js) takes them all off again.
function listen(hooks, transport, maxBytes, maxDepth, text) {
  const reader = envelopeReader(hooks, maxBytes, maxDepth, text);
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
    if (hooks.settled !== undefined) on("undelivered", (detail) => hooks.signal(UNDELIVERED, 0, detail));
  }
  hooks.listening = off;
}

// Opens an endpoint on `transport` with `options`: its JS state. What the
// options and the transport say crosses as numbers; the module decides
// what each means.
function open(transport, options, roles) {
  if (x === undefined) throw new Error("wiggum-rpc's module is not loaded yet: await init() first");
  if (!isObject(transport) || typeof transport.send !== "function" || typeof transport.onMessage !== "function") {
    throw new TypeError("transport must have send(message) and onMessage(handler)");
  }
  const given = isObject(options) ? options : {};
  const observer = observerOf(given);
  const number = (value, least) => (typeof value === "number" && value >= least ? value : -1);
  const { batches, limits } = given;
  const { session } = transport;
  // An endpoint takes references only where an entry that keeps their objects is installed.
  const referring = WITH_REFERENCES ? extensions.references?.opening(given) ?? 0 : 0;
  const flags = (given.jrpcOo === true ? JRPC_OO : 0) | (transport.dialect === "mcp" ? MCP : 0)
    | (transport.handshake === "hold" ? HOLD : transport.handshake === "announce" ? ANNOUNCE : transport.handshake === "await" ? AWAIT : 0)
    | (given.exposeStack === true ? EXPOSE_STACK : 0) | (transport.connected === false ? CONNECTING : 0)
    | (typeof transport.idle === "function" ? IDLE : 0) | referring
    // Batches may go packed over a channel of structured clones nobody watches message by message.
    | (transport.structured === true && transport.text !== true && observer === undefined ? PACKED : 0);
  // A transport may know better (a WebSocket's server may be slow: 60 s).
  const timeout = typeof given.timeout === "number" ? given.timeout
    : typeof transport.defaultTimeout === "number" ? transport.defaultTimeout : NaN;
  // A session: "client" (a WebSocket that reconnects asks for one), or what
  // a server grants, `{ id, grace, maxKept }` (the hub's).
  const served = isObject(session) && typeof session.id === "string";
  const presence = typeof transport.presence === "string" ? transport.presence : undefined;
  const [sidLen, presenceLen] = scratch([served ? session.id : "", presence ?? ""]);
  const ep = x.$open(
    roles, flags, timeout, given.batch === true ? 1 : given.batch === false ? 2 : 0,
    typeof batches === "number" ? Math.max(0, batches) || 0 : batches === "reject" ? -2 : batches === "allow" ? -3 : -1,
    number(limits?.maxInFlight, 1), number(limits?.maxMessageBytes, 1), number(limits?.maxDepth, 1),
    session === "client" ? 1 : served ? 2 : 0, sidLen, served ? number(session.grace, 0) : -1,
    served ? number(session.maxKept, 1) : -1, presence === undefined ? -1 : presenceLen,
  );
  const [maxBytes, maxDepth] = openedLimits();
  const text = transport.text === true;
  const hooks = {
    endpoint: ep, transport, text, observer, settled: typeof transport.settled === "function" ? transport.settled : undefined,
    calls: new Map(), handlers: [], slots: new Map(), controllers: new Map(), streaming: new Map(), timers: [], listening: [],
    around: undefined, intercept: undefined, timeout: typeof given.timeout === "number" ? given.timeout : undefined,
    threw: false, thrown: undefined, retired: false, undelivered: undefined, signal: undefined, takesReferences: WITH_REFERENCES && referring !== 0,
  };
  hooks.signal = (what, n, value) => signalled(hooks, what, n, value);
  endpoints[ep] = hooks;
  // A session handed over by another process (the Node build: handoff.js), or the endpoint is not made.
  if (WITH_HANDOFF && served && session.handed !== undefined && !extensions.takeOver(ep, session.handed)) {
    x.$tell(ep, T_DESTROY);
    endpoints[ep] = undefined;
    closeLater(ep);
    throw new TypeError("transport.session.handed is not a session handed off by a Peer");
  }
  listen(hooks, transport, maxBytes, maxDepth, text);
  // The hello, if the transport asked for a handshake.
  run();
  return hooks;
}

// An endpoint's JS state and transport (the classes' private state).
export let stateOf;

// What every endpoint has: the transport's events, its session, `destroy()`.
class Endpoint {
  #state;

  static {
    stateOf = (endpoint) => endpoint.#state;
  }

  constructor(transport, options, roles) {
    this.#state = open(transport, options, roles);
    const context = { calls: (roles & CALLS) !== 0, serves: (roles & SERVES) !== 0, transport, hooks: this.#state };
    for (const plugin of extensions.plugins) plugin.opened?.(this, options ?? {}, context);
  }

  /**
   * Listens to the transport's lifecycle events (`open`, `close`,
   * `reconnecting`, `reconnected`, `error`); returns what removes the listener.
   */
  on(event, listener) {
    const { transport } = this.#state;
    if (typeof transport.on !== "function") throw new TypeError("this transport has no events");
    return transport.on(event, listener);
  }

  /** The id of the resumable session this side is in, or undefined. */
  get session() {
    const hooks = this.#state;
    if (hooks.retired) return undefined;
    const len = x.$tell(hooks.endpoint, T_SESSION_ID);
    return len < 0 ? undefined : scratchText(len);
  }

  /** Rejects every pending call, stops serving, removes the listener, destroys the transport. */
  destroy() {
    const hooks = this.#state;
    for (const plugin of extensions.plugins) plugin.destroyed?.(this);
    if (hooks.retired) return;
    detach(hooks);
    try {
      hooks.transport.destroy?.();
    } finally {
      abortHandlers(hooks, undefined, destroyedError());
      x.$tell(hooks.endpoint, T_DESTROY);
      run();
      // From now on nothing reaches the module for this endpoint: its number may be another's.
      retireHooks(hooks);
      closeLater(hooks.endpoint);
    }
  }

  /** The same as `destroy()`: nothing is left to release after it. */
  free() {
    this.destroy();
  }
}

// The calling side's methods (JSONRPCClient, Peer).
class Calls {
  /**
   * Sends a request; resolves with its result, rejects with `RPCError`.
   * Through the endpoint's interceptors, if it has any (wiggum-rpc/middleware
   * fills `intercept`; its last step makes the call as `call` then says).
   */
  request(method, params, options) {
    const hooks = stateOf(this);
    if (typeof method !== "string") return Promise.reject(new TypeError("method must be a string"));
    if (hooks.intercept === undefined) return request(hooks, method, params, options);
    return hooks.intercept(method, params, options, (call) => request(hooks, call.method, call.params, { ...call.options, meta: call.meta }, call));
  }

  /** Sends a notification: no id, no response. */
  notify(method, params, options) {
    const hooks = stateOf(this);
    if (typeof method !== "string") throw new TypeError("method must be a string");
    if (Array.isArray(options?.transfer) && params !== undefined) params = transfer(params, options.transfer);
    if (hooks.retired) throw destroyedError();
    if (WITH_REFERENCES) params = extensions.references?.scan(hooks, params) ?? params;
    const refused = x.$notify(hooks.endpoint, put(method), opt(params));
    const error = refused === 0 ? undefined : refused === -1 ? destroyedError() : refusal(refused);
    run();
    if (error !== undefined) throw error;
  }

  /** Calls still waiting for a response. */
  get pending() {
    const hooks = stateOf(this);
    return hooks.retired ? 0 : x.$tell(hooks.endpoint, T_PENDING);
  }
}

// Makes a call (after the interceptors, if any). The options are read here
// and cross as numbers; the module decides what each means (a timeout of
// NaN or below 1 ms: none). Its metadata (`options.meta`, an object) and its
// deadline (a timeout given to the call or to the endpoint, as `deadline`)
// cross to a peer that takes metadata (the core's rule).
function request(hooks, method, params, options, outgoing) {
  if (hooks.retired) return Promise.reject(destroyedError());
  let timeout = NaN;
  let bits = 0;
  let window = 0;
  let maxTotal = NaN;
  let signal;
  let onChunk;
  let onProgress;
  let meta;
  if (options !== undefined && options !== null) {
    ({ onChunk, onProgress } = options);
    if (isObject(options.meta) && !Array.isArray(options.meta)) meta = options.meta;
    signal = isObject(options.signal) ? options.signal : undefined;
    if (signal?.aborted) return Promise.reject(new RPCError(REQUEST_CANCELLED, "Request aborted", signal.reason));
    if (Array.isArray(options.transfer) && params !== undefined) params = transfer(params, options.transfer);
    // A timeout given as NaN is none (0), as before.
    if (typeof options.timeout === "number") timeout = options.timeout === options.timeout ? options.timeout : 0;
    bits = (onProgress !== undefined ? CALL_PROGRESS : 0) | (options.resetTimeoutOnProgress === false ? CALL_NO_RESET : 0);
    // Only a call that takes chunks has a window.
    if (onChunk !== undefined && typeof options.window === "number" && options.window >= 1) window = Math.min(options.window, 0xffffffff);
    if (typeof options.maxTotalTimeout === "number") maxTotal = options.maxTotalTimeout;
  }
  // The time it has, as its handler should know it: a timeout given to it, or to the endpoint.
  const deadline = timeout === timeout ? timeout : hooks.timeout;
  if (deadline > 0 && deadline < 2 ** 31 && meta?.deadline === undefined) meta = { ...meta, deadline };
  // Params that hold references are sent as the entry that keeps their objects made them.
  if (WITH_REFERENCES) {
    try {
      params = extensions.references?.scan(hooks, params) ?? params;
    } catch (error) {
      return Promise.reject(error);
    }
  }
  const kind = params === undefined ? 0 : kindOf(params) + 1;
  const id = x.$request(hooks.endpoint, put(method), opt(params), kind, timeout, bits, window, maxTotal, metaHandle(meta));
  if (id <= 0) {
    const error = id === -1 ? destroyedError() : refusal(id);
    run();
    return Promise.reject(error);
  }
  // An interceptor learns the id its attempt went with.
  if (outgoing !== undefined) outgoing.id = id;
  const promise = openCall(hooks, id, method, onChunk, onProgress);
  if (signal !== undefined) watchAbort(hooks, id, signal);
  // A windowed stream: more credit goes back as `onChunk` takes chunks.
  if (window > 0) countConsumed(hooks, id);
  run();
  return promise;
}

// A call's metadata as it crosses: a handle, or 0 when it has none.
const metaHandle = (meta) => {
  for (const _ in meta) return put(meta);
  return 0;
};

// The serving side's methods (JSONRPCServer, Peer).
class Serves {
  /** Registers the handler of a method: `(params, context?) => result | Promise`. */
  method(name, handler, info) {
    register(this, name, handler, info, false);
  }

  /** Registers the handler of a notification (`info.params`: a schema its params must pass). */
  onNotify(name, handler, info) {
    register(this, name, handler, info, true);
  }
}

function register(endpoint, name, handler, info, notification) {
  if (typeof name !== "string") throw new TypeError("name must be a string");
  if (typeof handler !== "function") throw new TypeError("handler must be a function");
  const hooks = stateOf(endpoint);
  const served = wrapped(name, handler, info, notification, hooks);
  const number = addHandler(hooks, `${notification ? "n" : "m"}:${name}`, served);
  if (!hooks.retired) {
    const [len] = scratch([name]);
    x.$tell(hooks.endpoint, notification ? T_SET_NOTIFICATION : T_SET_METHOD, number, len);
    run();
  }
  for (const plugin of extensions.plugins) plugin.registered?.(endpoint, name, info, notification);
}

/** Calls methods on the other side of a transport. */
export class JSONRPCClient extends Endpoint {
  constructor(transport, options) {
    super(transport, options, CALLS);
  }
}

/** Serves methods and notifications to the other side of a transport. */
export class JSONRPCServer extends Endpoint {
  constructor(transport, options) {
    super(transport, options, SERVES);
  }
}

/** Client and server on one transport, both directions at once. */
export class Peer extends Endpoint {
  constructor(transport, options) {
    super(transport, options, CALLS | SERVES);
  }
}

// `using peer = new Peer(…)` destroys it at the end of its scope, where the runtime has `Symbol.dispose`.
if (typeof Symbol.dispose === "symbol") Endpoint.prototype[Symbol.dispose] = Endpoint.prototype.destroy;

// Each class has its sides' methods.
for (const [endpoint, ...sides] of [[JSONRPCClient, Calls], [JSONRPCServer, Serves], [Peer, Calls, Serves]]) {
  for (const side of sides) {
    const { constructor, ...methods } = Object.getOwnPropertyDescriptors(side.prototype);
    Object.defineProperties(endpoint.prototype, methods);
  }
}

/**
 * The session a client's first message presents to be resumed (a `$/ready`
 * naming one), or undefined: how a server of many clients finds the
 * session a new connection belongs to. `message` may be JSON text.
 */
export function presentedSession(message) {
  if (typeof message === "string") {
    try {
      message = JSON.parse(message);
    } catch {
      return undefined;
    }
  }
  const len = x.$presented_session(opt(message));
  const id = len < 0 ? undefined : scratchText(len);
  run();
  return id;
}

/**
 * The wait before reconnect attempt `attempt` (from 1), or -1 to give up:
 * the WebSocket transport of `wiggum-rpc/websocket` asks before each
 * attempt, with the settings of its `reconnect` option, each NaN where not given.
 */
export function reconnectDelay(initial, max, factor, jitter, attempts, attempt, random) {
  return x.$reconnect_delay(initial, max, factor, jitter, attempts, attempt, random);
}
