// A pool of workers behind one client, the package's `wiggum-rpc/pool`
// entry: N workers from a factory, each with a Peer over `workerTransport`;
// each call goes to the worker with the fewest calls in flight. A worker that
// dies (its `error` event, `terminate()`, or its end noticed by the
// transport, which emits `close`) is replaced: its calls fail with
// CONNECTION_CLOSED, unless the caller marked them safe to repeat (`retry`),
// which go to another worker. The protocol is each Peer's: this is
// bookkeeping over them.

import { ErrorCode, Peer, RPCError, workerTransport } from "./wiggum_rpc.js";
import { Listeners } from "./listeners.js";
import { contractClient, remoteProxy } from "./remote-proxy.js";

/** Waits before starting a worker again after the factory threw: 50 ms, doubling, at most 5 s. */
const RESTART_DELAY = { first: 50, most: 5000 };

class WorkerPool {
  #factory;
  #options;
  /** One slot per worker: `{ worker, transport, peer, inFlight, off }`, or undefined while it restarts. */
  #slots;
  /** Calls waiting for a worker (none could be started yet). */
  #waiting = [];
  #listeners = new Listeners(["error", "replaced"], "a worker pool");
  #destroyed = false;
  /** The next slot to try first among equals: spreads ties. */
  #turn = 0;
  #restartDelay = RESTART_DELAY.first;
  #timers = new Set();

  constructor(factory, options = {}) {
    if (typeof factory !== "function") throw new TypeError("workerPool: pass a function that makes a Worker");
    const size = Math.floor(Number(options.size ?? defaultSize()));
    if (!(size >= 1 && size <= 1024)) throw new RangeError("workerPool: size must be from 1 to 1024");
    this.#factory = factory;
    this.#options = options;
    this.#slots = new Array(size).fill(undefined);
    for (let at = 0; at < size; at++) this.#start(at);
  }

  /** How many workers the pool keeps. */
  get size() {
    return this.#slots.length;
  }

  /** The workers running now (a slot restarting has none). */
  get workers() {
    return this.#slots.filter((slot) => slot !== undefined).map((slot) => slot.worker);
  }

  /** Calls in flight, over all workers. */
  get pending() {
    return this.#slots.reduce((sum, slot) => sum + (slot?.inFlight ?? 0), 0) + this.#waiting.length;
  }

  /**
   * Calls `method` on the worker with the fewest calls in flight. Options are
   * a Peer's (`timeout`, `signal`, `onProgress`, …) and `retry`: the call is
   * safe to repeat, so if its worker dies it goes to another (up to once
   * more than the pool has workers) instead of failing.
   */
  request(method, params, options) {
    if (this.#destroyed) return Promise.reject(new RPCError(ErrorCode.DESTROYED, "The worker pool was destroyed"));
    // Safe to repeat: once more than there are other workers, so a pool of one retries on its replacement.
    const attempts = options?.retry ? this.#slots.length + 1 : 1;
    return this.#send(method, params, options, attempts);
  }

  async #send(method, params, options, attempts) {
    for (let attempt = 1; ; attempt++) {
      // Counted at once: the next call of this turn sees this one in flight.
      const slot = this.#leastBusy() ?? (await this.#started());
      slot.inFlight += 1;
      try {
        const result = await slot.peer.request(method, params, options);
        // A worker that answers is a good start: the next restart waits no longer than the first.
        this.#restartDelay = RESTART_DELAY.first;
        return result;
      } catch (error) {
        // Only a worker's end is worth another try: the call may not have run, and the caller said it may run twice.
        if (error?.code !== ErrorCode.CONNECTION_CLOSED || attempt >= attempts) throw error;
      } finally {
        slot.inFlight -= 1;
      }
    }
  }

  /**
   * Notifies one worker (the least busy), or every worker with `{ all: true }`.
   * Returns how many workers it went to.
   */
  notify(method, params, options) {
    const live = this.#slots.filter((slot) => slot !== undefined);
    if (this.#destroyed || live.length === 0) return 0;
    const targets = options?.all ? live : [this.#leastBusy()];
    for (const slot of targets) slot.peer.notify(method, params, options);
    return targets.length;
  }

  /** `pool.remote().build(...)`, as `peer.remote()` (`wiggum-rpc/remote`), spread over the workers. */
  remote(contract) {
    if (contract === undefined) return remoteProxy((method, args) => this.request(method, args));
    return contractClient(contract, (method, params, options) => this.request(method, params, options));
  }

  /** `error` (`{ error }`: the factory threw), `replaced` (`{ worker, reason }`); returns what removes the listener. */
  on(event, listener) {
    return this.#listeners.on(event, listener);
  }

  /** Ends every worker: calls in flight and waiting fail with DESTROYED. */
  destroy() {
    if (this.#destroyed) return;
    this.#destroyed = true;
    for (const timer of this.#timers) clearTimeout(timer);
    this.#timers.clear();
    for (const waiting of this.#waiting.splice(0)) waiting.reject(new RPCError(ErrorCode.DESTROYED, "The worker pool was destroyed"));
    for (let at = 0; at < this.#slots.length; at++) this.#end(at);
  }


  /** The slot with the fewest calls in flight (ties: the next in turn). */
  #leastBusy() {
    let best;
    const count = this.#slots.length;
    for (let step = 0; step < count; step++) {
      const slot = this.#slots[(this.#turn + step) % count];
      if (slot !== undefined && (best === undefined || slot.inFlight < best.inFlight)) best = slot;
    }
    this.#turn = (this.#turn + 1) % count;
    return best;
  }

  /** A slot once a worker has started (none is running now). */
  #started() {
    return new Promise((resolve, reject) => this.#waiting.push({ resolve, reject }));
  }

  #start(at) {
    if (this.#destroyed) return;
    let worker;
    try {
      worker = this.#factory();
      if (worker === null || typeof worker !== "object" || typeof worker.postMessage !== "function") {
        throw new TypeError("the factory did not return a Worker");
      }
    } catch (error) {
      // Told after this turn: the pool's first workers start in its constructor, before anyone listens.
      queueMicrotask(() => this.#listeners.emit("error", { error }));
      this.#failedToStart(at, error);
      return;
    }
    // The page's compiled module, handed over first: the worker starts without fetching it.
    if (this.#options.module !== undefined) worker.postMessage(this.#options.module);
    const transport = workerTransport(worker);
    const peer = new Peer(transport, this.#options.peer);
    const slot = { worker, transport, peer, inFlight: 0, off: undefined };
    const died = (reason) => () => this.#died(at, slot, reason);
    const onError = died("error");
    worker.addEventListener("error", onError);
    const offClose = peer.on("close", died("gone"));
    slot.off = () => {
      worker.removeEventListener("error", onError);
      offClose();
    };
    this.#slots[at] = slot;
    for (const waiting of this.#waiting.splice(0)) waiting.resolve(this.#leastBusy());
  }

  /** No worker at this slot for now: try again later; fail the waiting calls if no worker is alive. */
  #failedToStart(at, error) {
    if (this.#slots.every((slot) => slot === undefined)) {
      const reason = new RPCError(ErrorCode.CONNECTION_CLOSED, `Connection closed: no worker could be started: ${error?.message ?? error}`);
      for (const waiting of this.#waiting.splice(0)) waiting.reject(reason);
    }
    this.#later(at);
  }

  /** Starts slot `at` after the restart delay, which doubles until a worker answers. */
  #later(at) {
    const delay = this.#restartDelay;
    this.#restartDelay = Math.min(delay * 2, RESTART_DELAY.most);
    const timer = setTimeout(() => {
      this.#timers.delete(timer);
      this.#start(at);
    }, delay);
    this.#timers.add(timer);
  }

  /**
   * The worker of `slot` is gone: its calls fail (their Peer is destroyed),
   * and a new one takes its place: at once after a `terminate()`, after the
   * restart delay after an error (a script that fails to load would fail again).
   */
  #died(at, slot, reason) {
    if (this.#slots[at] !== slot || this.#destroyed) return;
    this.#end(at, true);
    this.#listeners.emit("replaced", { worker: slot.worker, reason });
    if (reason === "error") this.#later(at);
    else this.#start(at);
  }

  /** Ends slot `at`'s worker; `gone`: it died, so its calls fail with CONNECTION_CLOSED (else DESTROYED). */
  #end(at, gone = false) {
    const slot = this.#slots[at];
    if (slot === undefined) return;
    this.#slots[at] = undefined;
    slot.off();
    // As any transport tells its endpoint that the other side has gone (once more, if it told already).
    if (gone) slot.transport.emit("close", { reason: "worker gone" });
    slot.peer.destroy();
    slot.worker.terminate();
  }
}

function defaultSize() {
  const cores = globalThis.navigator?.hardwareConcurrency;
  return Number.isInteger(cores) && cores > 1 ? cores - 1 : 1;
}

/**
 * A pool of `options.size` workers made by `factory` (`() => new Worker(url,
 * { type: "module" })`), behind one client. Options: `size` (the cores less
 * one), `peer` (each worker's Peer options), `module` (a compiled
 * `WebAssembly.Module` posted to each worker first).
 */
export function workerPool(factory, options) {
  return new WorkerPool(factory, options);
}
