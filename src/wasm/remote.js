// Calling and serving objects: `peer.remote()` and `peer.expose(instance, name)`.

/** The endpoint's signal that makes a request (boundary.rs, `signal::REQUEST`). */
const REQUEST = 8;

// `peer.remote()`: `remote.add(2, 3)` calls `add` with params [2, 3];
// `remote.Repo.get_file_tree()` calls `Repo.get_file_tree`. `signal` is the
// endpoint's callback.
export function remoteProxy(signal) {
  const at = (path) =>
    new Proxy(function () {}, {
      get(_, key) {
        // Not thenable, so that `await remote` is the proxy itself.
        if (typeof key !== "string" || key === "then") return undefined;
        return at(path ? `${path}.${key}` : key);
      },
      apply(_, __, args) {
        return signal(REQUEST, 0, [path, args]);
      },
    });
  return at("");
}

// `peer.expose(instance, name)`: the instance's public methods (own and
// inherited, not underscore-prefixed, not Object.prototype's), as
// [name, handler] pairs. Positional params are spread; named ones passed as one object.
export function exposedMethods(instance, name) {
  const methods = [];
  const seen = new Set(["constructor"]);
  for (let proto = instance; proto && proto !== Object.prototype; proto = Object.getPrototypeOf(proto)) {
    for (const key of Object.getOwnPropertyNames(proto)) {
      if (seen.has(key) || key.startsWith("_")) continue;
      seen.add(key);
      const method = instance[key];
      if (typeof method !== "function") continue;
      methods.push([`${name}.${key}`, (params) =>
        Array.isArray(params) ? method.apply(instance, params)
          : params === undefined ? method.call(instance) : method.call(instance, params)]);
    }
  }
  return methods;
}
