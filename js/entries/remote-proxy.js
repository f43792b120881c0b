// Calling by name, as sugar over a `request(method, params, options)`:
// `remote()`'s proxy and a contract's client. Shared by `wiggum-rpc/remote`
// (a Peer's) and `wiggum-rpc/pool` (a pool's); bundled into each.

// A contract's methods: `{ name: { params?, result?, description?, handler? } }`.
export function contractEntries(contract) {
  if (contract === null || typeof contract !== "object") throw new TypeError("the contract must be an object");
  return Object.entries(contract).filter(([, definition]) => definition !== null && typeof definition === "object");
}

// `peer.remote(contract)`: one function per method of the contract, taking
// the call's params as they go on the wire (an object by name, an array by
// position) and the per-call options.
export function contractClient(contract, request) {
  const client = {};
  for (const [method] of contractEntries(contract)) {
    client[method] = (params, options) => request(method, params, options);
  }
  return Object.freeze(client);
}

// `peer.remote()`: `remote.add(2, 3)` calls `add` with params [2, 3];
// `remote.Repo.get_file_tree()` calls `Repo.get_file_tree`.
export function remoteProxy(request) {
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
