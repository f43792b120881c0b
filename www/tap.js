// A transport that wraps another and reports every message crossing it, in
// both directions: what feeds the inspector, and an example of a custom
// transport (any object with send / onMessage / offMessage / destroy).
export function tap(transport, boundary, report) {
  // destroy() hands back the handler it subscribed, not our wrapper.
  const wrappers = new Map();
  return {
    send(message, transfer) {
      // Reported before sending: once sent, transferred buffers are detached.
      report(boundary, "out", message);
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
