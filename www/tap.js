// A transport that wraps another and reports every message crossing it, in
// both directions: what feeds the inspector, and an example of a custom
// transport (any object with send / onMessage / offMessage / destroy). What
// the wrapped transport says of itself (JSON text, its dialect, its default
// timeout, its events) it says through the tap too.
export function tap(transport, boundary, report) {
  // destroy() hands back the handler it subscribed, not our wrapper.
  const wrappers = new Map();
  return {
    get text() {
      return transport.text;
    },
    get dialect() {
      return transport.dialect;
    },
    get defaultTimeout() {
      return transport.defaultTimeout;
    },
    get handshake() {
      return transport.handshake;
    },
    get listened() {
      return transport.listened;
    },
    on: transport.on && ((event, listener) => transport.on(event, listener)),
    send(message, transfer) {
      // Reported before sending: once sent, transferred buffers are detached.
      report(boundary, "out", typeof message === "string" ? JSON.parse(message) : message);
      transport.send(message, transfer);
    },
    onMessage(handler) {
      const wrapped = (message) => {
        report(boundary, "in", message);
        handler(message);
      };
      wrappers.set(handler, wrapped);
      transport.onMessage(wrapped);
    },
    offMessage(handler) {
      const wrapped = wrappers.get(handler);
      if (!wrapped) return;
      wrappers.delete(handler);
      transport.offMessage?.(wrapped);
    },
    destroy() {
      wrappers.clear();
      transport.destroy?.();
    },
  };
}
