// What entries plug in when imported (their install functions): a page that
// imports none of them loads none of their code. Each slot is a generic
// hook of the endpoint's; which entry fills which, and what the root entry
// says when an option needs one not imported, is the entries' to say
// (js/entries/requirements.js).

export const extensions = {
  // An observer of every endpoint's traffic, made from one option's value:
  // `{ option, make(value, methodOf) }`, where the observer made has
  // `sent`, `out`, `received`, `failed` and `local`.
  observer: undefined,
  // (name, handler, info, notification, hooks) => the handler to register,
  // for a handler whose info names a schema.
  wrap: undefined,
  // (hooks, check, params, context, ops) => Promise of a verdict: a call
  // whose handler carries a `check` (what `wrap` made) is settled by it.
  check: undefined,
  // Each `{ opened?, registered?, destroyed? }`: `opened(endpoint, options,
  // { calls, serves, transport })` as an endpoint opens, `registered(endpoint,
  // name, info, notification)` once a handler is in, `destroyed(endpoint)`.
  plugins: [],
  // References' objects (targets, stubs), kept by the entry that fills it:
  // `opening(options)` (bits for `open`), `scan(hooks, value)` (a call's
  // params or a result, made ready to send: undefined when it holds none;
  // throws what the call fails with), `event(hooks, what, n, value, id, member)`
  // (an E_REFERENCE: the payload with its stubs, for R_STUBS). A build whose
  // module takes references also sets `referenceOps` (references.js), and
  // one whose module hands sessions between processes, `takeOver(ep,
  // handed)` (handoff.js: the Node build).
  references: undefined,
  // The calls an endpoint serves, for an entry that runs them through its
  // own chain (wiggum-rpc/middleware sets an endpoint's `hooks.around`):
  // `context(hooks, call, meta)`, `id(hooks, call)`, `checked(hooks, check,
  // params, call, context)` (serving.js fills it), and the signals RESOLVED, REJECTED, INVALID_RESULT.
  serving: undefined,
  // What needs an entry that is not imported, and which: `{ options: { [option]: entry }, schemas: entry }`.
  requirements: { options: {}, schemas: undefined },
  isSchema,
};

function needs(what, entry) {
  return new TypeError(`${what} needs \`import "wiggum-rpc/${entry}"\``);
}

// Whether `value` is a Standard Schema (zod, valibot, arktype, …).
function isSchema(value) {
  return (typeof value === "object" || typeof value === "function") && value !== null
    && typeof value["~standard"]?.validate === "function";
}

// The method of a call still waiting (for an observer): `hooks` is the
// endpoint's JS state (endpoints.js).
function methodOf(hooks, id) {
  return hooks.calls.get(id)?.method;
}

/**
 * The endpoint's observer, from its options (undefined when none is asked
 * for). An option whose entry is not imported is refused with a TypeError
 * that names the entry.
 */
export function observerOf(given) {
  const { observer, requirements } = extensions;
  for (const option of Object.keys(requirements.options)) {
    if (given[option] !== undefined && observer?.option !== option) {
      throw needs(`the ${option} option`, requirements.options[option]);
    }
  }
  const value = observer === undefined ? undefined : given[observer.option];
  return value === undefined ? undefined : observer.make(value, methodOf);
}

// The handler to register: `handler` itself, or (when `info` names a
// schema and an entry checks schemas) the one that entry makes.
export function wrapped(name, handler, info, notification, hooks) {
  if (!isSchema(info?.params) && !isSchema(info?.result)) return handler;
  if (extensions.wrap === undefined) throw needs("a schema in a method's info", extensions.requirements.schemas);
  return extensions.wrap(name, handler, info, notification, hooks);
}
