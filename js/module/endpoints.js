// The classes users see: `JSONRPCClient` (calls), `JSONRPCServer` (serves)
// and `Peer` (both). Each holds its endpoint's JS state (`handlerHooks`,
// serving.js), which names the endpoint by the number the module knows it
// by: the module's exports open it and carry its calls (`classes.rs`), and
// everything else crosses as a signal through `hooks.signal`. What an entry
// adds to the classes (`remote()`, `stream()`, `expose()`) it adds to these
// prototypes; what plugs into every endpoint comes through the hooks of
// extensions.js (`plugins`).

import { contracted, extensions } from "./extensions.js";
import { kindOf, RPCError, sendCall } from "./glue.js";
import { addHandler } from "./serving.js";
import { transfer } from "./wire.js";

// What the endpoint is told through `hooks.signal` (boundary.rs, `signal`:
// the build checks that these match).
const METHOD = 8;
const NOTIFICATION = 9;
const PENDING = 20;
const SESSION = 21;
const DESTROY = 22;

// A request's options, as the module's `wiggumRequestWith` takes them
// (calls.rs, `call_options`: the build checks that these match).
const PROGRESS = 1;
const NO_RESET = 2;
const TIMEOUT = 4;

const CALLS = 1;
const SERVES = 2;

// The module's exports, once it is instantiated. Every instance of the
// module in a realm that shares this file says so (two imports of the
// entry under other URLs); an endpoint keeps the one that opened it.
let current;

export function started(wasm) {
  current = wasm;
}

const destroyedError = () => new RPCError(-32098, "The endpoint was destroyed");
const REQUEST_CANCELLED = -32800;

// An endpoint's module, JS state and transport (the classes' private state).
let stateOf;

// What every endpoint has: the transport's events, its session, `destroy()`.
class Endpoint {
  #state;

  static {
    stateOf = (endpoint) => endpoint.#state;
  }

  constructor(transport, options, roles) {
    if (current === undefined) throw new Error("wiggum-rpc's module is not loaded yet: await init() first");
    const hooks = current.wiggumOpen(transport, roles, options);
    if (typeof hooks?.signal !== "function") throw hooks;
    this.#state = { wasm: current, hooks, transport };
    const context = { calls: (roles & CALLS) !== 0, serves: (roles & SERVES) !== 0, transport };
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
    return this.#state.hooks.signal(SESSION, 0);
  }

  /** Rejects every pending call, stops serving, removes the listener, destroys the transport. */
  destroy() {
    for (const plugin of extensions.plugins) plugin.destroyed?.(this);
    this.#state.hooks.signal(DESTROY, 0);
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
   * The options are read here and cross as numbers; the module decides
   * what each means (a timeout of NaN or below 1 ms: none).
   */
  request(method, params, options) {
    const { wasm, hooks, transport } = stateOf(this);
    if (typeof method !== "string") return Promise.reject(new TypeError("method must be a string"));
    let called;
    if (options === undefined || options === null) {
      const id = wasm.wiggumRequest(hooks.endpoint, method, params, params === undefined ? 0 : kindOf(params) + 1);
      if (id === 0) {
        called = hooks.opened;
        hooks.opened = undefined;
      } else if (id === id) {
        // Its request is the one thing to send, as it is (a negative id: as JSON text).
        return sendCall(hooks, transport, id < 0, method, params, Math.abs(id));
      }
    } else {
      const { timeout, onChunk, onProgress, window, maxTotalTimeout } = options;
      const signal = typeof options.signal === "object" && options.signal !== null ? options.signal : undefined;
      if (signal?.aborted) return Promise.reject(new RPCError(REQUEST_CANCELLED, "Request aborted", signal.reason));
      if (Array.isArray(options.transfer) && params !== undefined) params = transfer(params, options.transfer);
      const bits = (onProgress !== undefined ? PROGRESS : 0) | (options.resetTimeoutOnProgress === false ? NO_RESET : 0)
        | (typeof timeout === "number" ? TIMEOUT : 0);
      // Only a call that takes chunks has a window.
      const chunks = onChunk !== undefined && typeof window === "number" && window >= 1 ? Math.min(window, 0xffffffff) : 0;
      called = wasm.wiggumRequestWith(hooks.endpoint, method, params, params === undefined ? 0 : kindOf(params) + 1,
        bits, typeof timeout === "number" ? timeout : NaN, chunks, typeof maxTotalTimeout === "number" ? maxTotalTimeout : NaN,
        signal, onChunk, onProgress);
    }
    return called ?? Promise.reject(destroyedError());
  }

  /** Sends a notification: no id, no response. */
  notify(method, params, options) {
    const { wasm, hooks } = stateOf(this);
    if (typeof method !== "string") throw new TypeError("method must be a string");
    if (Array.isArray(options?.transfer) && params !== undefined) params = transfer(params, options.transfer);
    const refused = wasm.wiggumNotify(hooks.endpoint, method, params);
    if (refused !== undefined) throw refused === 0 ? destroyedError() : refused;
  }

  /** Calls still waiting for a response. */
  get pending() {
    return stateOf(this).hooks.signal(PENDING, 0) ?? 0;
  }
}

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
  const { hooks } = stateOf(endpoint);
  const run = contracted(name, handler, info, notification, hooks);
  const number = addHandler(hooks, `${notification ? "n" : "m"}:${name}`, run);
  hooks.signal(notification ? NOTIFICATION : METHOD, number, name);
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
