// Every call's context, the package's `wiggum-rpc/middleware` entry: the
// chains an endpoint runs around the calls it serves (`use`) and those it
// makes (`intercept`), which importing it adds to the root's classes; an
// interceptor that makes a failed idempotent call again (`retry`), with
// the same idempotency key each time; and a middleware that answers a key
// it has seen with the first answer instead of running the handler again
// (`idempotency`). What crosses is the call's metadata (`meta`), and only
// to a peer that takes it: that rule is the core's (src/core/wire.rs, `META`).
//
// Importing the entry is what installs `use` and `intercept` (the entry's
// last lines, written by the build, call `installMiddleware` with the root
// entry's classes); an endpoint that adds neither runs no chain.

import { RPCError } from "./wiggum_rpc.js";

/** Adds `use` to the serving classes and `intercept` to the calling ones. */
export function installMiddleware({ JSONRPCClient, JSONRPCServer, Peer, extensions }) {
  // Each endpoint's JS state, as it opens (a plugin sees it).
  const states = new WeakMap();
  extensions.plugins.push({ opened: (endpoint, options, { hooks }) => states.set(endpoint, hooks) });
  const serving = extensions.serving;
  // Method `name` on `classes` adds a function (a `what`) to the endpoint's
  // chain: the hook `hook` that runs it is made with the first (`runs(chain)`).
  const adds = (classes, name, what, hook, runs) => {
    for (const endpoint of classes) {
      endpoint.prototype[name] = function (fn) {
        if (typeof fn !== "function") throw new TypeError(`${what} must be a function`);
        const hooks = states.get(this);
        if (hooks[hook] === undefined) {
          const chain = [];
          hooks[hook] = runs(chain);
          hooks[hook].chain = chain;
        }
        hooks[hook].chain.push(fn);
        return this;
      };
    }
  };
  adds([JSONRPCServer, Peer], "use", "middleware", "around", (chain) => Object.assign(
    (hooks, handler, params, call, meta) => around(hooks, chain, serving, handler, params, call, meta),
    // What an error answers: a schema's verdict it carries, or itself.
    { failed: (error) => error?.[VERDICT] ?? [serving.REJECTED, error] },
  ));
  adds([JSONRPCClient, Peer], "intercept", "interceptor", "intercept",
    (chain) => (method, params, options, send) => intercepted(chain, method, params, options, send));
}

// A call served through `middleware` (`call` undefined: a notification):
// each sees `{ method, id, params, meta, context, notification }` and
// `next()`; the handler gets the params and context they leave. Resolves
// with the result that answers it, or rejects with the error (one that
// carries a schema's verdict, as the check made it, answers as `failed`
// says); a notification's outcome goes nowhere.
function around(hooks, middleware, serving, handler, params, call, meta) {
  const run = hooks.handlers[handler];
  const notification = call === undefined;
  const context = notification ? {} : serving.context(hooks, call, meta);
  // The caller's id is asked of the core when a middleware reads it, while the call is served.
  let id = notification ? undefined : NOT_READ;
  const incoming = {
    method: methodName(hooks, handler),
    get id() {
      if (id === NOT_READ) id = serving.id(hooks, call);
      return id;
    },
    params,
    meta,
    context,
    notification,
  };
  const outcome = chain(middleware, incoming, (served) => {
    if (run.check === undefined || notification) return run(served.params, served.context);
    // A checked handler: its verdict rides a rejection, so the middleware
    // sees the error its caller will get (invalid params with the issues as
    // data; an invalid result as an internal error, nothing of it sent).
    return serving.checked(hooks, run.check, served.params, call, served.context).then(([signal, value]) => {
      if (signal === serving.RESOLVED) return value;
      const error = signal === serving.INVALID_RESULT
        ? new RPCError(-32603, "Internal error: invalid result")
        : new RPCError(-32602, "Invalid params", value);
      throw Object.assign(error, { [VERDICT]: [signal, value] });
    });
  });
  if (notification) {
    outcome.catch(() => {
      // Dropped, as the spec says of a notification's errors.
    });
  }
  return outcome;
}
const VERDICT = Symbol("verdict");
const NOT_READ = Symbol("not read");

// The name handler number `handler` was registered under (its slot's key,
// "m:name"), looked up once: a name registered again keeps its number.
const names = new WeakMap();
function methodName(hooks, handler) {
  let known = names.get(hooks);
  if (known === undefined) names.set(hooks, (known = []));
  if (known[handler] === undefined) {
    for (const [key, number] of hooks.slots) if (number === handler) known[handler] = key.slice(2);
  }
  return known[handler];
}

/**
 * Runs `middleware` (in order) around `last`: each gets `call` and a
 * `next()` that runs the rest and resolves with the outcome; what the
 * outermost resolves with (or throws) is the call's. A middleware may
 * answer (return) or throw without calling `next`; `repeatable`: `next()`
 * may run the rest again (a retry), else a second `next()` is refused.
 * Each step runs at once, not in a later microtask, so what a middleware
 * makes current around `next()` (an active context) is current for the
 * rest and for the handler's synchronous part.
 */
function chain(middleware, call, last, repeatable) {
  const step = (at) => {
    try {
      if (at === middleware.length) return Promise.resolve(last(call));
      let called = false;
      return Promise.resolve(middleware[at](call, () => {
        if (called && !repeatable) return Promise.reject(new Error("next() was called twice"));
        called = true;
        return step(at + 1);
      }));
    } catch (error) {
      return Promise.reject(error);
    }
  };
  return step(0);
}

// A call made through `interceptors`: `call` is `{ method, params, options,
// meta }` (each may change them; `meta` is what crosses), `send(call)` makes
// it and sets `call.id`; an interceptor that calls `next()` again makes it again.
function intercepted(interceptors, method, params, options, send) {
  const given = options ?? {};
  const meta = given.meta !== null && typeof given.meta === "object" ? { ...given.meta } : {};
  return chain(interceptors, { method, params, options: { ...given }, meta }, send, true);
}

// What a retry may follow: the connection closed, the call could not be
// sent, it timed out. Anything else is the other side's answer.
const CONNECTION_CLOSED = -32095;
const SEND_FAILED = -32096;
const REQUEST_TIMEOUT = -32099;
const INVALID_PARAMS = -32602;
const MAX_KEY = 200;

const randomKey = () => globalThis.crypto.randomUUID();

/**
 * An interceptor that makes a call marked `idempotent: true` (or given an
 * `idempotencyKey` in its metadata) again when it fails for want of a
 * connection or of time (`on`: the codes it retries), up to `attempts` in
 * all, waiting `delay` ms, then `factor` times longer each time (at most
 * `maxDelay`). Every attempt carries the same `meta.idempotencyKey`. Any
 * other call goes once.
 */
export function retry({ attempts = 3, delay = 100, factor = 2, maxDelay = 5_000, on = [CONNECTION_CLOSED, SEND_FAILED, REQUEST_TIMEOUT] } = {}) {
  return async (call, next) => {
    if (call.options.idempotent !== true && typeof call.meta.idempotencyKey !== "string") return next();
    call.meta.idempotencyKey ??= randomKey();
    for (let attempt = 1; ; attempt++) {
      try {
        return await next();
      } catch (error) {
        const signal = call.options.signal;
        if (attempt >= attempts || !on.includes(error?.code) || signal?.aborted) throw error;
        await pause(Math.min(maxDelay, delay * factor ** (attempt - 1)), signal);
      }
    }
  };
}

// Waits `ms`, or until `signal` aborts.
function pause(ms, signal) {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener("abort", done, { once: true });
  });
}

/**
 * A middleware that runs a call's handler once per idempotency key: a call
 * that comes again with a key it has seen (within `ttl` ms, among the last
 * `maxKeys`) gets the first call's answer, its result or its error, even
 * while the first is still running. A key used again with other params is
 * refused (`INVALID_PARAMS`), and so is one longer than 200 characters.
 * Keys are kept apart per `scope(call)` (by default the hub's client id,
 * so one client cannot reach another's answers). Calls without a key pass.
 */
export function idempotency({ maxKeys = 1_000, ttl = 10 * 60_000, scope = (call) => call.context.client } = {}) {
  // Oldest first: a Map keeps insertion order.
  const seen = new Map();
  const forgetOld = (now) => {
    for (const [key, entry] of seen) {
      if (seen.size <= maxKeys && entry.expires > now) break;
      seen.delete(key);
    }
  };
  return (call, next) => {
    const key = call.meta?.idempotencyKey;
    if (call.notification || key === undefined) return next();
    if (typeof key !== "string" || key.length === 0 || key.length > MAX_KEY) {
      throw new RPCError(INVALID_PARAMS, `meta.idempotencyKey must be a string of 1 to ${MAX_KEY} characters`);
    }
    const now = Date.now();
    forgetOld(now);
    const stored = `${scope(call) ?? ""}\u0000${call.method}\u0000${key}`;
    const params = fingerprint(call.params);
    const first = seen.get(stored);
    if (first !== undefined && first.expires > now) {
      if (first.params !== params) throw new RPCError(INVALID_PARAMS, `Idempotency key ${key} was used before with other params`);
      return first.outcome;
    }
    const outcome = next();
    seen.set(stored, { params, outcome, expires: now + ttl });
    forgetOld(now);
    return outcome;
  };
}

// What tells two calls' params apart: their JSON, or (a value JSON cannot
// hold, a cycle) the value itself.
function fingerprint(params) {
  try {
    return JSON.stringify(params) ?? "";
  } catch {
    return params;
  }
}
