// Functions and objects by reference, for `wiggum-rpc/remote`: the marker
// (`reference()`), the scan of a call's params or a result for markers and
// stubs, the stubs a message brings, and the targets this side runs when
// the other side calls one. Only objects live here; the core keeps every
// rule (ids, counts, bounds, what is refused, when references are dropped),
// reached through the root's `extensions.referenceOps`.

import { R_DROPPED, R_FREED, R_INVOKE, R_STUBS, REFERENCES, REJECTED, RESOLVED } from "../module/numbers.js";

const UNKNOWN_REFERENCE = -32091;
const CONNECTION_CLOSED = -32095;
const METHOD_NOT_FOUND = -32601;

// What a function or object sent by reference is wrapped in: only these
// (and stubs) are sent by reference, so plain data never turns into one.
class Reference {
  #target;
  constructor(target) {
    this.#target = target;
    // Handed to a Peer of the other flavour (`wiggum-rpc`, which has no
    // references), the marker would go as plain data: its clone or its JSON
    // reads this member, which says so instead.
    Object.defineProperty(this, "reference", { enumerable: true, get: otherFlavour });
  }

  get target() {
    return this.#target;
  }
}

function otherFlavour() {
  throw new TypeError("reference() went to a Peer of wiggum-rpc, which has no references: import every entry from one flavour (wiggum-rpc/references/…)");
}

let ops;
let RPCError;
// Markers and stubs not collected yet: while none is, a call's params hold
// none, and the scan is skipped (it may stay high, never wrongly 0).
let live = 0;
const reachable = new FinalizationRegistry(() => {
  live -= 1;
});
// Each stub's record: its endpoint, its id, whether it was released.
const stubs = new WeakMap();
// Each endpoint's JS state → its endpoint, and back (`referencesHeld`).
const endpointOf = new WeakMap();
const stateOf = new WeakMap();

// A stub collected unreleased: the backstop releases it, and the observer hears of the leak.
const leaks = new FinalizationRegistry((record) => {
  const { hooks, id } = record;
  if (record.released || record.epoch !== refsOf(hooks).epoch || hooks.retired) return;
  record.released = true;
  hooks.observer?.local("reference-leaked", undefined, `$/ref/${id}`, { ref: id });
  ops.release(hooks, id);
});

/**
 * Marks a function or an object to be sent by reference: the other side
 * gets a stub that calls it here. Works between wiggum-rpc Peers that both
 * import this entry.
 */
export function reference(target) {
  if (typeof target !== "function" && (target === null || typeof target !== "object")) {
    throw new TypeError("reference() takes a function or an object");
  }
  if (ops === undefined) throw new TypeError("wiggum-rpc/remote leaves references out: import every entry from wiggum-rpc/references");
  const marker = new Reference(target);
  live += 1;
  reachable.register(marker, undefined);
  return marker;
}

/** [this side's targets `peer` holds, `peer`'s stubs this side holds], as the core counts them. */
export function referencesHeld(peer) {
  const hooks = stateOf.get(peer);
  return hooks === undefined || ops === undefined ? [0, 0] : ops.held(hooks);
}

// An endpoint's references: its targets by id and ids by target, and the
// epoch its stubs were made in (a new one when the core drops them all).
function refsOf(hooks) {
  hooks.references ??= { exports: new Map(), byTarget: new Map(), epoch: 0 };
  return hooks.references;
}

const isPlain = (value) => {
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
};

// `value` with `replacement` at `path`, copying each container on the way
// (the caller's params are never changed: a retry sends them again).
function withAt(value, path, at, replacement) {
  if (at === path.length) return replacement;
  const copy = Array.isArray(value) ? [...value] : { ...value };
  copy[path[at]] = withAt(value[path[at]], path, at + 1, replacement);
  return copy;
}

// A call's params or a result, ready to send: undefined when it holds no
// marker or stub; otherwise a copy with each replaced by `{ $ref: id }`,
// its `refs` staged for the message the caller makes next. Throws what
// the call fails with (the core's refusal, a stub that cannot go).
function scan(hooks, value) {
  if (live === 0 || value === null || (typeof value !== "object" && typeof value !== "function")) return undefined;
  const found = [];
  const seen = new Set();
  const walk = (one, path) => {
    if (one instanceof Reference || stubs.has(one)) found.push([path, one]);
    else if (one !== null && typeof one === "object" && !seen.has(one)) {
      seen.add(one);
      if (Array.isArray(one)) one.forEach((item, i) => walk(item, [...path, i]));
      else if (isPlain(one)) for (const key of Object.keys(one)) walk(one[key], [...path, key]);
    }
  };
  walk(value, []);
  if (found.length === 0) return undefined;
  const refs = refsOf(hooks);
  const fresh = [];
  const again = [];
  const back = [];
  // Each found: an export id, the index of a fresh target (numbered once the core gives the first id), or a stub's id.
  const slots = found.map(([, one]) => {
    if (one instanceof Reference) {
      const id = refs.byTarget.get(one.target);
      if (id !== undefined) {
        again.push(id);
        return { id };
      }
      fresh.push(one.target);
      return { fresh: fresh.length - 1 };
    }
    const record = stubs.get(one);
    if (record.hooks !== hooks) throw new TypeError("a stub of another connection: wrap it in reference() to forward it");
    if (record.released) throw new RPCError(UNKNOWN_REFERENCE, `Unknown reference: ${record.id} (this stub was released)`);
    if (record.epoch !== refs.epoch) throw new RPCError(CONNECTION_CLOSED, "Connection closed");
    back.push(record.id);
    // A stub passed back names the other side's own export: a negative id.
    return { id: -record.id };
  });
  const first = ops.export(hooks, fresh.length, again, back);
  if (first instanceof Error) throw first;
  fresh.forEach((target, i) => {
    refs.exports.set(first + i, target);
    refs.byTarget.set(target, first + i);
  });
  const list = [];
  let out = value;
  found.forEach(([path], i) => {
    const id = slots[i].id ?? first + slots[i].fresh;
    list.push([id, path]);
    out = withAt(out, path, 0, { $ref: id });
  });
  ops.stage(hooks, list);
  return out;
}

// A stub of the other side's reference `id` on this endpoint: `await
// stub(…)` calls it, `await stub.name(…)` its method; `release()` (or
// `[Symbol.dispose]`) lets it go, once.
function stubOf(hooks, id) {
  const refs = refsOf(hooks);
  const record = { hooks, id, epoch: refs.epoch, released: false };
  const call = (member, args, options) => {
    if (record.released) return Promise.reject(new RPCError(UNKNOWN_REFERENCE, `Unknown reference: ${id} (this stub was released)`));
    if (record.epoch !== refs.epoch || hooks.retired) return Promise.reject(new RPCError(CONNECTION_CLOSED, "Connection closed"));
    return endpointOf.get(hooks).request(member === undefined ? `$/ref/${id}` : `$/ref/${id}.${member}`, args, options);
  };
  record.call = call;
  const release = () => {
    if (record.released) return false;
    record.released = true;
    leaks.unregister(record);
    if (record.epoch === refs.epoch) ops.release(hooks, id);
    return true;
  };
  const methods = new Map();
  const method = (key) => {
    let one = methods.get(key);
    if (one === undefined) methods.set(key, (one = (...args) => call(key, args)));
    return one;
  };
  // Named, so that the console and Node's util.inspect (which show a proxy's target) say what it is.
  const target = function () {};
  Object.defineProperty(target, "name", { value: `wiggum-rpc stub ${id}` });
  const stub = new Proxy(target, {
    apply: (_, __, args) => call(undefined, args),
    get: (_, key) => (key === "release" || key === Symbol.dispose ? release
      : typeof key !== "string" || key === "toJSON" || key === "then" || key === "constructor" ? probed(id, key) : method(key)),
  });
  stubs.set(stub, record);
  leaks.register(stub, record, record);
  live += 1;
  reachable.register(stub, undefined);
  return stub;
}

// What the language and the platform ask of any object, never a call: a
// stub is not thenable (so `await stub` is the stub), not iterable (no
// symbol is a member), has no constructor of its own; and `JSON.stringify`,
// `String()` and Node's `util.inspect` are told it is a stub, with nothing sent.
const INSPECT = Symbol.for("nodejs.util.inspect.custom");
function probed(id, key) {
  if (key === Symbol.toStringTag) return "wiggum-rpc stub";
  if (key === "toJSON" || key === Symbol.toPrimitive || key === INSPECT) return () => `[wiggum-rpc stub ${id}]`;
  return undefined;
}

/**
 * `stub`'s calls with a request's options (`timeout`, `signal`,
 * `onProgress`, `transfer`): `withOptions(stub, { signal })(…)`,
 * `withOptions(stub, { timeout: 500 }).method(…)`. The stub's lifetime is
 * unchanged (release the stub, not this).
 */
export function withOptions(stub, options) {
  const record = stubs.get(stub);
  if (record === undefined) throw new TypeError("withOptions() takes a stub");
  return new Proxy(function () {}, {
    apply: (_, __, args) => record.call(undefined, args, options),
    get: (_, key) => (typeof key !== "string" || key === "then" ? undefined : (...args) => record.call(key, args, options)),
  });
}

// The payload a message brought, with a stub (or, for an id of this side's,
// the original target) at each path its `refs` list.
function materialize(hooks, payload, list) {
  const refs = refsOf(hooks);
  for (const [id, path] of list) {
    const one = id > 0 ? stubOf(hooks, id) : refs.exports.get(-id);
    if (path.length === 0) {
      payload = one;
      continue;
    }
    let container = payload;
    for (let i = 0; i < path.length - 1 && container !== null && typeof container === "object"; i++) container = container[path[i]];
    if (container !== null && typeof container === "object") container[path[path.length - 1]] = one;
    // A path that leads nowhere: its stub is let go at once, so the owner hears of it.
    else if (id > 0) one.release();
  }
  return payload;
}

// Runs target `id` (its `member`, when named) as the handler of `call`:
// its outcome goes back as a handler's does.
function invoke(hooks, call, id, params, member) {
  const target = refsOf(hooks).exports.get(id);
  let run = target;
  let self;
  if (member !== undefined) {
    // A method as `expose()` serves one: not underscore-prefixed, not the constructor, not Object.prototype's.
    const found = member.startsWith("_") || member === "constructor" || member in Object.prototype ? undefined : target?.[member];
    run = found;
    self = target;
  }
  if (typeof run !== "function") {
    hooks.signal(REJECTED, call, new RPCError(METHOD_NOT_FOUND, `Method not found: $/ref/${id}${member === undefined ? "" : `.${member}`}`));
    return;
  }
  const args = Array.isArray(params) ? params : params === undefined ? [] : [params];
  let result;
  try {
    result = run.apply(self, args);
  } catch (error) {
    hooks.signal(REJECTED, call, error);
    return;
  }
  Promise.resolve(result).then((value) => hooks.signal(RESOLVED, call, value), (error) => hooks.signal(REJECTED, call, error));
}

// What the core says about references (an E_REFERENCE event).
function event(hooks, what, n, value, id, member) {
  const refs = refsOf(hooks);
  switch (what) {
    case R_STUBS:
      return materialize(hooks, value, id);
    case R_INVOKE:
      invoke(hooks, n, id, value, member);
      return undefined;
    case R_FREED: {
      const target = refs.exports.get(id);
      refs.exports.delete(id);
      if (refs.byTarget.get(target) === id) refs.byTarget.delete(target);
      return undefined;
    }
    case R_DROPPED:
      // Every stub of the old epoch now fails CONNECTION_CLOSED; every target is forgotten.
      refs.epoch += 1;
      refs.exports.clear();
      refs.byTarget.clear();
      return undefined;
    default:
      return undefined;
  }
}

/** Fills the root's references slot (the entry's install calls it). */
export function installReferences(extensions, errorClass) {
  RPCError = errorClass;
  ops = extensions?.referenceOps;
  if (ops === undefined || extensions.references !== undefined) return;
  extensions.references = {
    // Asked as an endpoint opens: the core offers references (a Peer's, in the plain dialect).
    opening(options) {
      const most = options.limits?.maxReferences;
      ops.limit(typeof most === "number" ? most : 0);
      return REFERENCES;
    },
    scan,
    event,
  };
  extensions.plugins.push({
    opened(endpoint, _options, { hooks }) {
      endpointOf.set(hooks, endpoint);
      stateOf.set(endpoint, hooks);
    },
  });
}
