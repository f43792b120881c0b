// comctx's options and its README's postMessage adapter, shared by the page's
// variant, the cold start, and comctx's worker and frame.

/**
 * No heartbeat check (as its README's comlink-style wrapper): with it, every
 * call first waits for a ping's answer, and with 1,024 calls in flight the
 * pings go unanswered past its 1 s heartbeat timeout, which fails the calls.
 */
export const COMCTX = { namespace: "__bench__", heartbeatCheck: false };

/**
 * An adapter that sends with `send(message, transfer)` and hands comctx the
 * messages of `events` (a port, started by its owner; a worker; a scope; a
 * window) that `accept(event)` lets through.
 */
export function comctxAdapter(send, events, accept = () => true) {
  return {
    sendMessage: send,
    onMessage(callback) {
      const handler = (event) => accept(event) && callback(event.data);
      events.addEventListener("message", handler);
      return () => events.removeEventListener("message", handler);
    },
  };
}
