// `wiggum-rpc/remote`: calling and serving objects and contracts,
// `peer.remote()`, `peer.remote(contract)`, `peer.expose(instance, name)`
// and `peer.implement(contract, handlers)`. Importing the entry adds these
// methods to the classes (the entry's last lines, written by the build, call
// `installRemote` with the root entry's classes); a page that never imports
// it carries none of this. All are sugar over `request` and `method`.

import { contractClient, contractEntries, remoteProxy } from "./remote-proxy.js";

// A module built without references (the package's): `reference()` says so.
// A build with them has its own entry (remote-references.js).
export function reference() {
  throw new TypeError("wiggum-rpc/remote leaves references out: import every entry from wiggum-rpc/references");
}

export function referencesHeld() {
  return [0, 0];
}

export function withOptions() {
  reference();
}

/**
 * Adds `remote()` to the calling classes, and `expose()` and `implement()`
 * to the serving ones.
 */
export function installRemote({ JSONRPCClient, JSONRPCServer, Peer }) {
  for (const calls of [JSONRPCClient, Peer]) {
    calls.prototype.remote = function remote(contract) {
      if (contract === undefined) return remoteProxy((method, args) => this.request(method, args));
      return contractClient(contract, (method, params, options) => this.request(method, params, options));
    };
  }
  for (const serves of [JSONRPCServer, Peer]) {
    serves.prototype.expose = function expose(instance, name, contract) {
      if (instance === null || typeof instance !== "object") throw new TypeError("expose: instance must be an object");
      for (const [method, key, handler] of exposedMethods(instance, String(name))) {
        this.method(method, handler, contract?.[key]);
      }
    };
    serves.prototype.implement = function implement(contract, handlers) {
      for (const [method, definition] of contractEntries(contract)) {
        const handler = handlers?.[method] ?? definition.handler;
        if (typeof handler !== "function") throw new TypeError(`implement: no handler for ${method}`);
        this.method(method, handler, definition);
      }
    };
  }
}

// `peer.expose(instance, name)`: the instance's public methods (own and
// inherited, not underscore-prefixed, not Object.prototype's), as
// [name, key, handler] triples. Positional params are spread; named ones passed as one object.
function exposedMethods(instance, name) {
  const methods = [];
  const seen = new Set(["constructor"]);
  for (let proto = instance; proto && proto !== Object.prototype; proto = Object.getPrototypeOf(proto)) {
    for (const key of Object.getOwnPropertyNames(proto)) {
      if (seen.has(key) || key.startsWith("_")) continue;
      seen.add(key);
      const method = instance[key];
      if (typeof method !== "function") continue;
      methods.push([`${name}.${key}`, key, (params) =>
        Array.isArray(params) ? method.apply(instance, params)
          : params === undefined ? method.call(instance) : method.call(instance, params)]);
    }
  }
  return methods;
}
