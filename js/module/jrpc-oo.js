// jrpc-oo's handshake, for endpoints made with `jrpcOo: true` (its
// `{"args": [...]}` params are the core's `Dialect::JrpcOo`):
// `system.listComponents`, by which each side tells the other its methods,
// answered here and sent whenever they change or the connection opens. A
// plugin of every endpoint (extensions.js, `plugins`), which the module
// plugs in as it starts.

import { extensions } from "./extensions.js";

// What each endpoint in jrpc-oo's conventions keeps: how to read its method
// names (the endpoint's own, whoever registered them, and whenever), and
// whether an announcement is due at the end of the turn.
const handshakes = new WeakMap();

const plugin = { opened, registered, destroyed };

// Every instance of the module in a realm that shares this file plugs it in: once is enough.
export function plugJrpcOo() {
  if (!extensions.plugins.includes(plugin)) extensions.plugins.push(plugin);
}

function opened(endpoint, options, { serves, transport, call, methods }) {
  if (options.jrpcOo !== true) return;
  const handshake = { methods, due: false, gone: false, transport, call, unlisten: undefined };
  handshakes.set(endpoint, handshake);
  if (serves) endpoint.method("system.listComponents", () => componentMap(methods()));
  if (typeof transport.on === "function") handshake.unlisten = transport.on("open", () => changed(handshake));
}

function registered(endpoint, name, info, notification) {
  const handshake = handshakes.get(endpoint);
  if (handshake !== undefined && !notification) changed(handshake);
}

function destroyed(endpoint) {
  const handshake = handshakes.get(endpoint);
  if (handshake === undefined) return;
  handshake.gone = true;
  handshake.unlisten?.();
  handshakes.delete(endpoint);
}

// The methods changed, or the connection opened: the other side hears of
// it once, at the end of the turn, if the connection is open by then (else
// its `open` event will tell it).
function changed(handshake) {
  if (handshake.due) return;
  handshake.due = true;
  queueMicrotask(() => {
    handshake.due = false;
    if (handshake.gone || handshake.transport.connected !== true) return;
    handshake.call("system.listComponents", componentMap(handshake.methods())).catch(() => {});
  });
}

function componentMap(names) {
  const map = {};
  for (const name of names) map[name] = true;
  return map;
}
