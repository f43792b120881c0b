// A page's transport to a SharedWorker whose hub `listen()`s: the worker's
// port, and a Web Lock the page holds while it lives, so that the worker
// learns when the page has gone.

import { portTransport } from "./wiggum_rpc.js";
import { holdLock } from "./locks.js";

// The key of a page's first message to a SharedWorker: the name of the Web
// Lock the page holds for as long as it lives. The browser releases it when
// the page goes away, however it goes; the worker, waiting for the same
// lock, then learns the page is gone.
export const PAGE_LOCK = "wiggum-rpc/page-lock";

/**
 * A page's transport to a SharedWorker served by `hub.listen()`: its port,
 * and a Web Lock held while the page lives (or until `destroy()`), so the
 * worker's hub drops this page when it goes. `options` are `portTransport`'s.
 */
export function sharedWorkerTransport(worker, options) {
  const port = worker.port;
  const transport = portTransport(port, options);
  const lock = `${PAGE_LOCK}/${crypto.randomUUID()}`;
  const leaving = new AbortController();
  // The worker hears of the lock once the page holds it: asked for
  // earlier, the lock would be the worker's at once.
  const locked = holdLock(lock, leaving.signal, () => port.postMessage({ [PAGE_LOCK]: lock }));
  if (!locked) return transport;
  const destroy = transport.destroy.bind(transport);
  transport.destroy = () => {
    leaving.abort();
    destroy();
  };
  return transport;
}
