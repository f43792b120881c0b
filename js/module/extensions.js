// What the capability entries plug in: `wiggum-rpc/trace`, `/contracts` and
// `/introspection` fill these slots when imported (their install
// functions): a page that imports none of them loads none of their code.
// Until one is imported, the option it serves is refused with a TypeError
// that names it.

export const extensions = {
  // (hook, methodOf) => a tracer: `sent`, `out`, `received`, `failed`, `local`.
  tracer: undefined,
  // (name, handler, info, notification, hooks) => the handler to register.
  contracted: undefined,
  // (hooks, contract, params, context, ops) => Promise of a verdict.
  checked: undefined,
  // (openrpc option) => `{ list, describe, discover, record }`.
  introspection: undefined,
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

// The handler to register: `handler` itself, or (wiggum-rpc/contracts) one
// that checks the schemas `info` names.
export function contracted(name, handler, info, notification, hooks) {
  if (!isSchema(info?.params) && !isSchema(info?.result)) return handler;
  return missing("contracted", "a schema in a method's info", "contracts")(name, handler, info, notification, hooks);
}

// A server's introspection catalog, or undefined when
// wiggum-rpc/introspection was not imported.
export function introspection(options) {
  return extensions.introspection?.(options);
}

// jrpc-oo's `system.listComponents`: this side's method names as a map.
export function componentMap(names) {
  const map = {};
  for (const name of names) map[name] = true;
  return map;
}

export function ignoreRejection(promise) {
  promise.catch(() => {});
}
