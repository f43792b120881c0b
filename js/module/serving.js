// The calls this side serves: running a handler (its context, its
// asynchronous outcome, a schema's check), notification handlers, and the
// endpoint's timers; each told to the endpoint through its JS state's one
// callback, `hooks.signal` (endpoints.js).

import { extensions } from "./extensions.js";
import { vals, x } from "./abi.js";
import { Transfer } from "./wire.js";

import { CHECKED, CHECKING, CHUNK, DEADLINE, INVALID_PARAMS, INVALID_RESULT, PROGRESS, REJECTED, RESOLVED, TICK, T_SERVED_ID } from "./numbers.js";

// The endpoint's timers: the clock's tick (`TICK`) or its earliest
// deadline (`DEADLINE`), one of each at most, told to the endpoint when it
// fires. Arming one replaces the one armed before.
export function arm(hooks, which, delay) {
  clearTimeout(hooks.timers[which]);
  hooks.timers[which] = setTimeout(() => {
    hooks.timers[which] = undefined;
    hooks.signal(which, 0);
  }, delay);
}

// The endpoint wants the end of this turn (`FLUSH`): what it held back goes then.
export function flushLater(hooks) {
  queueMicrotask(() => hooks.signal(FLUSH, 0));
}

// Takes the endpoint's listeners off its transport and clears its timers.
export function detach(hooks) {
  for (const remove of hooks.listening.splice(0)) remove();
  clearTimeout(hooks.timers[TICK]);
  clearTimeout(hooks.timers[DEADLINE]);
  hooks.timers = [];
}

// The second argument of a handler that declares one (and what middleware
// sees as `call.context`), `{ signal, emit, progress, meta }`; what aborts
// its signal waits in `hooks.controllers` until the handler is done. The
// signal's AbortController is made when the signal is first asked for, or
// to abort it: most handlers never look, and it was most of what a context
// cost (a handler that declares one ran at 0.66 of one that did not). `emit`
// sends a chunk and returns a promise that resolves once the handler may send
// the next: at once, unless the caller's credit is used up (`stream.credit`).
// `meta`: the caller's metadata (data, never trusted unless checked); the
// core answers the call once its `deadline` has passed, and the signal
// aborts then (E_EXPIRED, abi.js).
function handlerContext(hooks, call, meta) {
  let controller;
  hooks.controllers.set(call, (reason) => (controller ??= new AbortController()).abort(reason));
  const emit = (chunk) => {
    if (hooks.signal(CHUNK, call, chunk) !== false) return Promise.resolve();
    return new Promise((resolve) => hooks.streaming.set(call, resolve));
  };
  const progress = (value) => {
    hooks.signal(PROGRESS, call, value);
  };
  return {
    get signal() {
      return (controller ??= new AbortController()).signal;
    },
    emit,
    progress,
    meta,
  };
}

// The handler of `call` may stream again (or is done): its waiting `emit` resolves.
export function mayStream(hooks, call) {
  const resume = hooks.streaming.get(call);
  hooks.streaming.delete(call);
  resume?.();
}

// Reports how an asynchronous handler ended: its value as RESOLVED, or (a
// checked call) the signal and value `verdict` makes of it. One reaction,
// no more: an answer that settles in its batch's turn leaves with the batch.
// `failed`: the signal and value an error makes (the middleware's chain
// carries a schema's verdict on one), or undefined for REJECTED.
function settleLater(hooks, call, outcome, verdict = (value) => [RESOLVED, value], failed) {
  outcome.then(
    (value) => {
      hooks.controllers.delete(call);
      mayStream(hooks, call);
      const [what, reported] = verdict(value);
      hooks.signal(what, call, reported);
    },
    (error) => {
      hooks.controllers.delete(call);
      mayStream(hooks, call);
      const [what, reported] = failed?.(error) ?? [REJECTED, error];
      hooks.signal(what, call, reported);
    },
  );
}

// Runs handler number `handler` (`hooks.handlers`): returns its result
// (null for undefined) when it returns at once, or undefined when it does
// not: it threw (`hooks.threw`; what it threw waits in `hooks.thrown`, for
// `takeThrown`) or returned a promise, whose outcome goes to
// `hooks.signal(RESOLVED or REJECTED, call, value)`. A handler that
// declares a second parameter gets its context. A handler that carries a
// check (`extensions.wrap` made it) always settles later, through `invokeChecked`.
export function invoke(hooks, handler, params, call, meta) {
  const run = hooks.handlers[handler];
  // Through the endpoint's middleware (wiggum-rpc/middleware fills `around`): its outcome later.
  if (hooks.around !== undefined) {
    settleLater(hooks, call, hooks.around(hooks, handler, params, call, meta), undefined, hooks.around.failed);
    return undefined;
  }
  if (run.check !== undefined) {
    settleLater(hooks, call, invokeChecked(hooks, run.check, params, call, meta), (signalled) => signalled);
    return undefined;
  }
  const contextual = run.length >= 2;
  let result;
  try {
    result = contextual ? run(params, handlerContext(hooks, call, meta)) : run(params);
  } catch (error) {
    hooks.controllers.delete(call);
    hooks.threw = true;
    hooks.thrown = error;
    return undefined;
  }
  if (!isThenable(result)) {
    if (contextual) hooks.controllers.delete(call);
    return result === undefined ? null : result;
  }
  settleLater(hooks, call, Promise.resolve(result));
  return undefined;
}

// Runs notification handler number `handler` (through the endpoint's
// middleware, if it has any): a notification has nobody to tell of a failure.
export function notifyHandler(hooks, handler, params) {
  if (hooks.around !== undefined) {
    hooks.around(hooks, handler, params, undefined, undefined);
    return;
  }
  try {
    hooks.handlers[handler](params);
  } catch {
    // Dropped, as the spec says of a notification's errors.
  }
}

// Keeps `handler` among the endpoint's handlers; returns its number. A
// method or notification registered again (`key` names it) keeps its number.
export function addHandler(hooks, key, handler) {
  let number = hooks.slots.get(key);
  if (number === undefined) hooks.slots.set(key, (number = hooks.handlers.length));
  hooks.handlers[number] = handler;
  return number;
}

export function takeThrown(hooks) {
  const thrown = hooks.thrown;
  hooks.thrown = undefined;
  return thrown;
}

// What the middleware entry needs of a call being served: its context
// (made once, as a handler's), the id its caller gave it, and how a checked
// handler's call settles (a promise of [signal, value]).
extensions.serving = {
  context: (hooks, call, meta) => handlerContext(hooks, call, meta),
  id(hooks, call) {
    const h = x.$tell(hooks.endpoint, T_SERVED_ID, call);
    return h === 0 ? null : vals[h];
  },
  checked: (hooks, check, params, call, context) => invokeChecked(hooks, check, params, call, undefined, context),
  RESOLVED,
  REJECTED,
  INVALID_RESULT,
};

// A checked method's call (`extensions.check` checks it): resolves
// with the signal that reports its verdict and the value that goes with it.
// `ops` are what a check tells the endpoint: an asynchronous check is
// announced (`checking`, then `checked`) so that the endpoint bounds it.
function invokeChecked(hooks, check, params, call, meta, context = handlerContext(hooks, call, meta)) {
  const ops = { checking: () => hooks.signal(CHECKING, call), checked: () => hooks.signal(CHECKED, call), Transfer };
  return extensions.check(hooks, check, params, context, ops).then((verdict) => {
    if ("invalidParams" in verdict) return [INVALID_PARAMS, verdict.invalidParams];
    if ("invalidResult" in verdict) return [INVALID_RESULT];
    return [RESOLVED, verdict.result];
  });
}

// Aborts the signal of one running handler (`call`), or of all (`call` undefined).
export function abortHandlers(hooks, call, reason) {
  for (const [running, abort] of [...hooks.controllers]) {
    if (call !== undefined && running !== call) continue;
    hooks.controllers.delete(running);
    mayStream(hooks, running);
    abort(reason);
  }
}

// Tells the transport's `sessionend` listeners once the endpoint's current
// work is done: a listener may call back into the endpoint, or destroy it.
export function sessionEnded(transport) {
  queueMicrotask(() => transport.emit?.("sessionend"));
}

// The endpoint is destroyed: a handler that settles later has nobody to tell
// (its endpoint's callback may be freed with it).
export function retireHooks(hooks) {
  hooks.retired = true;
  hooks.signal = () => undefined;
}

export function isThenable(value) {
  return value !== null && (typeof value === "object" || typeof value === "function")
    && typeof value.then === "function";
}
