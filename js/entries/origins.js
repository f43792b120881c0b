// Who may open a WebSocket to a hub (`Hub.attach`): the checks of an
// upgrade request's `Host` and `Origin`, as the hub applies them before a
// socket is taken.

/** An origin as the URL standard serializes it (lower case, no default port, no path), or undefined. */
export function originOf(text) {
  try {
    const origin = new URL(String(text)).origin;
    return origin === "null" ? undefined : origin;
  } catch {
    return undefined;
  }
}

const LOOPBACK_NAMES = new Set(["localhost", "127.0.0.1", "[::1]"]);

function isLoopback(address) {
  return address === "::1" || /^(::ffff:)?127\./.test(address ?? "");
}

/** Why a WebSocket upgrade `request` may not connect (see `Hub.attach`), or undefined. */
export function refusal(request, origins) {
  const headers = request.headers ?? {};
  const host = String(headers.host ?? "").toLowerCase();
  let hostname;
  try {
    hostname = new URL(`http://${host}`).hostname;
  } catch {
    return `Host ${host} is not a host`;
  }
  if (isLoopback(request.socket?.localAddress) && !LOOPBACK_NAMES.has(hostname)) {
    return `Host ${host} is not a loopback name (the server listens on loopback)`;
  }
  const origin = headers.origin;
  if (origin === undefined || origins === "*") return undefined;
  const normalized = originOf(origin);
  if (normalized === undefined) return `Origin ${origin} is not allowed`;
  if (origins.has(normalized)) return undefined;
  // The server's own pages: the origin's host and port are the request's Host.
  const own = originOf(`${normalized.slice(0, normalized.indexOf(":"))}://${host}`);
  return own === normalized ? undefined : `Origin ${origin} is not allowed`;
}
