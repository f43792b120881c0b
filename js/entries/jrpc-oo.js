// `wiggum-rpc/jrpc-oo`: jrpc-oo's shapes of params (the `jrpcOo` option):
// `{"args": [...]}` both ways. The `system.listComponents` handshake in
// which each side lists its methods is the endpoint's own.
//
// Importing the entry is what makes the option work (the entry's last
// lines, written by the build, call `installJrpcOo` with the root entry's
// `extensions`); without it, an endpoint made with `jrpcOo: true` is refused.

/** Makes the `jrpcOo` option work on every endpoint of the page. */
export function installJrpcOo({ extensions }) {
  extensions.jrpcOo = { argsParams, argsOf };
}

// Params as jrpc-oo sends them: `{"args": [...]}` for class methods, which it
// reads unguarded (a call without params sends no args); its own `system.*`
// methods take params as they are (any object, even `[]`, sent to
// system.listComponents replaces this side's method list there).
function argsParams(method, params) {
  if (method.startsWith("system.")) return params;
  if (params === undefined) return { args: [] };
  return Array.isArray(params) ? { args: params } : params;
}

function argsOf(params) {
  return params !== null && typeof params === "object" && !Array.isArray(params) && Array.isArray(params.args)
    ? params.args
    : params;
}
