// jrpc-oo's conventions (the `jrpcOo` option): `{"args": [...]}` params and
// the `system.listComponents` handshake in which each side lists its methods.

// Params as jrpc-oo sends them: `{"args": [...]}` for class methods, which it
// reads unguarded (a call without params sends no args); its own `system.*`
// methods take params as they are (any object, even `[]`, sent to
// system.listComponents replaces this side's method list there).
export function argsParams(method, params) {
  if (method.startsWith("system.")) return params;
  if (params === undefined) return { args: [] };
  return Array.isArray(params) ? { args: params } : params;
}

export function argsOf(params) {
  return params !== null && typeof params === "object" && !Array.isArray(params) && Array.isArray(params.args)
    ? params.args
    : params;
}

export function componentMap(names) {
  const map = {};
  for (const name of names) map[name] = true;
  return map;
}

export function ignoreRejection(promise) {
  promise.catch(() => {});
}
