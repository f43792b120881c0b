// `wiggum-rpc/remote`: calling and serving objects, `peer.remote()` and
// `peer.expose(instance, name)`. Importing the entry adds the two methods to
// the classes (the entry's last lines, written by the build, call
// `installRemote` with the root entry's classes); a page that never imports
// it carries none of this. Both are sugar over `request` and `method`.

/** Adds `remote()` to the calling classes and `expose()` to the serving ones. */
export function installRemote({ JSONRPCClient, JSONRPCServer, Peer }) {
  for (const calls of [JSONRPCClient, Peer]) {
    calls.prototype.remote = function remote() {
      return remoteProxy((method, args) => this.request(method, args));
    };
  }
  for (const serves of [JSONRPCServer, Peer]) {
    serves.prototype.expose = function expose(instance, name) {
      if (instance === null || typeof instance !== "object") throw new TypeError("expose: instance must be an object");
      for (const [method, handler] of exposedMethods(instance, String(name))) this.method(method, handler);
    };
  }
}

// `peer.remote()`: `remote.add(2, 3)` calls `add` with params [2, 3];
// `remote.Repo.get_file_tree()` calls `Repo.get_file_tree`.
function remoteProxy(request) {
  const at = (path) =>
    new Proxy(function () {}, {
      get(_, key) {
        // Not thenable, so that `await remote` is the proxy itself.
        if (typeof key !== "string" || key === "then") return undefined;
        return at(path ? `${path}.${key}` : key);
      },
      apply(_, __, args) {
        return request(path, args);
      },
    });
  return at("");
}

// `peer.expose(instance, name)`: the instance's public methods (own and
// inherited, not underscore-prefixed, not Object.prototype's), as
// [name, handler] pairs. Positional params are spread; named ones passed as one object.
function exposedMethods(instance, name) {
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
