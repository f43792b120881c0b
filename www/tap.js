// A transport that wraps another and reports every message crossing it:
// the demo's log, and an example of a custom transport.
export function tap(transport, boundary, report) {
  return {
    send(message, transfer) {
      report(boundary, "→", message);
      transport.send(message, transfer);
    },
    onMessage(handler) {
      transport.onMessage((message) => {
        report(boundary, "←", message);
        handler(message);
      });
    },
    destroy() {
      transport.destroy();
    },
  };
}
