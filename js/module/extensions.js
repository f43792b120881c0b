// What the capability entries plug in when imported (their install
// functions): a page that imports none of them loads none of their code.
// `plugins` see every endpoint open and every handler registered; the
// slots serve one option each, which is refused with a TypeError naming
// the entry until that entry is imported.

export const extensions = {
  // (hook, methodOf) => a tracer: `sent`, `out`, `received`, `failed`, `local`.
  tracer: undefined,
  // (name, handler, info, notification, hooks) => the handler to register.
  contracted: undefined,
  // (hooks, contract, params, context, ops) => Promise of a verdict.
  checked: undefined,
  // Each `{ opened?, registered?, destroyed? }`: `opened(endpoint, options,
  // { calls, serves, transport })` as an endpoint opens, `registered(endpoint,
  // name, info, notification)` once a handler is in, `destroyed(endpoint)`.
  plugins: [],
  isSchema,
};

function missing(slot, what, entry) {
  if (extensions[slot] === undefined) throw new TypeError(`${what} needs \`import "wiggum-rpc/${entry}"\``);
  return extensions[slot];
}

// Whether `value` is a Standard Schema (zod, valibot, arktype, …).
function isSchema(value) {
  return (typeof value === "object" || typeof value === "function") && value !== null
    && typeof value["~standard"]?.validate === "function";
}

// The method of a call still waiting (for the trace): `calls` is the
// endpoint's JS state (serving.js, `handlerHooks`).
function methodOf(calls, id) {
  return calls.calls.get(id)?.method;
}

// The `trace` option's tracer (wiggum-rpc/trace).
export function tracer(hook) {
  return missing("tracer", "the trace option", "trace")(hook, methodOf);
}

// Two of the tracer's methods, as functions: the module calls them with no
// shim between.
export function traceSent(tracer, id, method) {
  tracer.sent(id, method);
}

export function traceReceived(tracer, message, calls) {
  tracer.received(message, calls);
}

// The handler to register: `handler` itself, or (wiggum-rpc/contracts) one
// that checks the schemas `info` names.
export function contracted(name, handler, info, notification, hooks) {
  if (!isSchema(info?.params) && !isSchema(info?.result)) return handler;
  return missing("contracted", "a schema in a method's info", "contracts")(name, handler, info, notification, hooks);
}
