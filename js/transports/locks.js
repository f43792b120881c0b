// Web Locks, by which one context learns that another has gone, however it
// went (closed, crashed, stopped): the one holds a lock named for itself
// while it lives, the other waits for that lock. The SharedWorker, service
// worker and BroadcastChannel transports and their hubs use them.

/**
 * Holds the lock `name` until `signal` aborts (or this context ends);
 * `onHeld` runs once it is held. False where there are no Web Locks.
 */
export function holdLock(name, signal, onHeld) {
  const locks = globalThis.navigator?.locks;
  if (locks === undefined) return false;
  locks.request(name, () => {
    if (signal?.aborted) return undefined;
    onHeld();
    return new Promise((resolve) => signal?.addEventListener("abort", resolve, { once: true }));
  });
  return true;
}

/** Calls `onGone` once the holder of the lock `name` has gone, unless `signal` aborts first. */
export function whenGone(name, signal, onGone) {
  globalThis.navigator?.locks?.request(name, { signal }, () => {
    onGone();
  }).catch(() => {});
}
