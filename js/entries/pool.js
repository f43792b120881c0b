// A pool of workers behind one client, the package's `wiggum-rpc/pool`
// entry: N workers from a factory, each with a Peer over `workerTransport`.
// Calls wait in the pool, and a worker is given at most
// `maxInFlightPerWorker` of them at a time: each call goes to whichever
// worker is free first. A worker that dies (its `error` event, its
// `terminate()`, or its end noticed by the transport, which emits `close`)
// or is stuck (a call of its timed out, and then it said nothing for
// `timeoutGrace`) is replaced: its calls fail with CONNECTION_CLOSED, unless
// the caller marked them safe to repeat (`retry`), which go to another
// worker. The protocol is each Peer's: this is bookkeeping over them.

import { ErrorCode, Peer, RPCError, workerTransport } from "./wiggum_rpc.js";
import { Listeners } from "./listeners.js";
import { contractClient, remoteProxy } from "./remote-proxy.js";

/** Waits before starting a worker again after the factory threw: 50 ms, doubling, at most 5 s. */
const RESTART_DELAY = { first: 50, most: 5000 };
/** A Peer's own default timeout (`EndpointOptions.timeout`): what a waiting call counts against when neither it nor `peer` names one. */
const PEER_TIMEOUT = 10_000;
const DEFAULTS = { maxInFlightPerWorker: 1, timeoutGrace: 1000 };

class WorkerPool {
  #factory;
  #options;
  #perWorker;
  #grace;
  /**
   * One slot per worker, or undefined while it restarts: `{ at, worker,
   * transport, peer, inFlight, held, grace, off }`. `held`: calls that timed
   * out there, counted as the worker's until it says something.
   */
  #slots;
  /** Calls waiting for a free worker, in order; `head` is the next. A call settled while waiting stays, marked `done`, until it comes up. */
  #queue = [];
  #head = 0;
  #waiting = 0;
  #listeners = new Listeners(["error", "replaced"], "a worker pool");
  #destroyed = false;
  /** The next slot to try first among equals: spreads ties. */
  #turn = 0;
  /** Each slot's next restart delay (undefined: the first), doubling until its worker answers. */
  #restartDelays = [];
  #timers = new Set();

  constructor(factory, options = {}) {
    if (typeof factory !== "function") throw new TypeError("workerPool: pass a function that makes a Worker");
    const size = Math.floor(Number(options.size ?? defaultSize()));
    if (!(size >= 1 && size <= 1024)) throw new RangeError("workerPool: size must be from 1 to 1024");
    const perWorker = Number(options.maxInFlightPerWorker ?? DEFAULTS.maxInFlightPerWorker);
    if (!(perWorker === Infinity || (Number.isInteger(perWorker) && perWorker >= 1))) {
      throw new RangeError("workerPool: maxInFlightPerWorker must be a whole number from 1, or Infinity");
    }
    const grace = Number(options.timeoutGrace ?? DEFAULTS.timeoutGrace);
    if (!(grace >= 0)) throw new RangeError("workerPool: timeoutGrace must be a number of ms from 0, or Infinity");
    this.#factory = factory;
    this.#options = options;
    this.#perWorker = perWorker;
    this.#grace = grace;
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

  /** Calls in flight on the workers and waiting in the pool. */
  get pending() {
    return this.#slots.reduce((sum, slot) => sum + (slot?.inFlight ?? 0), 0) + this.#waiting;
  }

  /**
   * Calls `method` on the first worker free. Options are a Peer's
   * (`timeout`, `signal`, `onProgress`, …), counted from now: a call that
   * waits in the pool takes what is left of them to its worker; and
   * `retry`: the call is safe to repeat, so if its worker dies it goes to
   * another (up to once more than the pool has workers) instead of failing.
   */
  request(method, params, options) {
    if (this.#destroyed) return Promise.reject(destroyedError());
    return new Promise((resolve, reject) => {
      const call = {
        method,
        params,
        options,
        // Safe to repeat: once more than there are other workers, so a pool of one retries on its replacement.
        attempts: options?.retry ? this.#slots.length + 1 : 1,
        resolve,
        reject,
        made: performance.now(),
        done: false,
        unwatch: undefined,
      };
      this.#wait(call);
      this.#pump();
    });
  }

  /**
   * Notifies one worker (the least busy), or every worker with `{ all: true }`.
   * Notifications do not wait in the pool: they go at once, and may pass
   * calls still waiting. Returns how many workers it went to.
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

  /** `error` (`{ error }`: the factory threw), `replaced` (`{ worker, reason }`: a worker ended, its place to be filled); returns what removes the listener. */
  on(event, listener) {
    return this.#listeners.on(event, listener);
  }

  /** Ends every worker: calls in flight and waiting fail with DESTROYED. */
  destroy() {
    if (this.#destroyed) return;
    this.#destroyed = true;
    for (const timer of this.#timers) clearTimeout(timer);
    this.#timers.clear();
    this.#failWaiting(destroyedError());
    for (let at = 0; at < this.#slots.length; at++) this.#end(at);
  }

  // --- The calls waiting in the pool.

  /**
   * Queues `call` (first in line with `first`: a retry), armed to end on its
   * own while it waits: its signal aborts, or its time is up. Either way it
   * is never sent.
   */
  #wait(call, first = false) {
    const signal = call.options?.signal;
    if (signal?.aborted) return call.reject(abortedError(call, signal));
    const left = this.#timeLeft(call);
    if (left !== undefined && left <= 0) return call.reject(waitTimeoutError(call));
    const stop = (error) => () => {
      this.#unwait(call);
      call.reject(error());
    };
    const timer = left === undefined ? undefined : setTimeout(stop(() => waitTimeoutError(call)), left);
    const onAbort = signal && stop(() => abortedError(call, signal));
    signal?.addEventListener("abort", onAbort, { once: true });
    call.done = false;
    call.unwatch = () => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
    };
    if (first && this.#head > 0) this.#queue[--this.#head] = call;
    else if (first) this.#queue.unshift(call);
    else this.#queue.push(call);
    this.#waiting += 1;
  }

  /** Takes `call` out of the wait (it leaves the queue when it comes up). */
  #unwait(call) {
    call.done = true;
    call.unwatch();
    this.#waiting -= 1;
  }

  /** The next call still waiting, taken out of the queue; undefined when none. */
  #next() {
    while (this.#head < this.#queue.length) {
      const call = this.#queue[this.#head];
      this.#queue[this.#head++] = undefined;
      if (this.#head === this.#queue.length || this.#head > 1024) {
        this.#queue = this.#queue.slice(this.#head);
        this.#head = 0;
      }
      if (!call.done) {
        this.#unwait(call);
        return call;
      }
    }
    return undefined;
  }

  /** What is left of the call's time (its timeout, its total bound), in ms; undefined when it has none. */
  #timeLeft(call, now = performance.now()) {
    const timeout = call.options?.timeout ?? this.#options.peer?.timeout ?? PEER_TIMEOUT;
    const bounds = [timeout, call.options?.maxTotalTimeout].filter((ms) => typeof ms === "number" && ms > 0 && ms !== Infinity);
    if (bounds.length === 0) return undefined;
    return Math.min(...bounds) - (now - call.made);
  }

  #failWaiting(error) {
    for (let call = this.#next(); call !== undefined; call = this.#next()) call.reject(error);
  }

  /** Gives waiting calls to free workers, first come first served. */
  #pump() {
    while (this.#waiting > 0) {
      const slot = this.#free();
      if (slot === undefined) return;
      this.#send(slot, this.#next());
    }
  }

  #send(slot, call) {
    slot.inFlight += 1;
    let options = call.options;
    const waited = performance.now() - call.made;
    // The call's time counts from when it was made: its worker gets what is left.
    if (waited >= 1 && this.#timeLeft(call) !== undefined) {
      const left = (ms) => (typeof ms === "number" && ms > 0 && ms !== Infinity ? Math.max(1, ms - waited) : ms);
      options = { ...options, timeout: left(options?.timeout ?? this.#options.peer?.timeout ?? PEER_TIMEOUT) };
      if (options.maxTotalTimeout !== undefined) options.maxTotalTimeout = left(options.maxTotalTimeout);
    }
    let answer;
    try {
      answer = slot.peer.request(call.method, call.params, options);
    } catch (error) {
      answer = Promise.reject(error);
    }
    answer.then(
      (result) => {
        // A worker that answers is a good start: its slot's next restart waits no longer than the first.
        this.#restartDelays[slot.at] = undefined;
        this.#done(slot);
        call.resolve(result);
      },
      (error) => this.#failed(slot, call, error),
    );
  }

  #failed(slot, call, error) {
    // Only a worker's end is worth another try: the call may not have run, and the caller said it may run twice.
    if (error?.code === ErrorCode.CONNECTION_CLOSED && call.attempts > 1 && !this.#destroyed) {
      call.attempts -= 1;
      this.#done(slot);
      this.#wait(call, true);
      this.#pump();
      return;
    }
    if (error?.code === ErrorCode.REQUEST_TIMEOUT && this.#grace !== Infinity && this.#slots[slot.at] === slot) {
      // Its worker may be stuck on it: the call keeps its place there until the worker says something.
      slot.inFlight -= 1;
      slot.held += 1;
      this.#suspect(slot);
    } else {
      this.#done(slot);
    }
    call.reject(error);
  }

  /** A call of `slot` settled: its place there is free. */
  #done(slot) {
    slot.inFlight -= 1;
    if (this.#slots[slot.at] === slot) this.#pump();
  }

  // --- The workers.

  /** The live slot with the fewest calls, held ones included (ties: the next in turn). */
  #leastBusy(limit = Infinity) {
    let best;
    let fewest = limit;
    const count = this.#slots.length;
    for (let step = 0; step < count; step++) {
      const slot = this.#slots[(this.#turn + step) % count];
      if (slot === undefined) continue;
      const busy = slot.inFlight + slot.held;
      if (busy < fewest) {
        best = slot;
        fewest = busy;
      }
    }
    this.#turn = (this.#turn + 1) % count;
    return best;
  }

  /** The least busy slot that may take one more call, or undefined. */
  #free() {
    return this.#leastBusy(this.#perWorker);
  }

  /**
   * A call of `slot` timed out: the worker has `timeoutGrace` ms to send
   * anything (that call's late answer, another's, progress). A worker whose
   * thread runs for ever sends nothing: it is ended and replaced.
   */
  #suspect(slot) {
    if (slot.grace !== undefined) return;
    const onMessage = () => {
      slot.grace?.();
      slot.held = 0;
      this.#pump();
    };
    const timer = setTimeout(() => {
      this.#timers.delete(timer);
      this.#died(slot, "stuck");
    }, this.#grace);
    this.#timers.add(timer);
    slot.worker.addEventListener("message", onMessage);
    slot.grace = () => {
      slot.grace = undefined;
      clearTimeout(timer);
      this.#timers.delete(timer);
      slot.worker.removeEventListener("message", onMessage);
    };
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
    const slot = { at, worker, transport, peer, inFlight: 0, held: 0, grace: undefined, off: undefined };
    const onError = () => this.#died(slot, "error");
    worker.addEventListener("error", onError);
    const offClose = peer.on("close", () => this.#died(slot, "gone"));
    const offTerminate = onTerminate(worker, () => this.#died(slot, "gone"));
    slot.off = () => {
      worker.removeEventListener("error", onError);
      offClose();
      offTerminate();
      slot.grace?.();
    };
    this.#slots[at] = slot;
    this.#pump();
  }

  /** No worker at this slot for now: try again later; fail the waiting calls if no worker is alive. */
  #failedToStart(at, error) {
    if (this.#slots.every((slot) => slot === undefined)) {
      this.#failWaiting(new RPCError(ErrorCode.CONNECTION_CLOSED, `Connection closed: no worker could be started: ${error?.message ?? error}`));
    }
    this.#later(at);
  }

  /**
   * Starts slot `at` after its restart delay, which doubles until its worker
   * answers (each slot its own: another slot's worker answering says
   * nothing of this one's factory or script).
   */
  #later(at) {
    const delay = this.#restartDelays[at] ?? RESTART_DELAY.first;
    this.#restartDelays[at] = Math.min(delay * 2, RESTART_DELAY.most);
    const timer = setTimeout(() => {
      this.#timers.delete(timer);
      this.#start(at);
    }, delay);
    this.#timers.add(timer);
  }

  /**
   * The worker of `slot` is gone (or stuck): its calls fail (their Peer is
   * destroyed), and a new one takes its place: at once after a
   * `terminate()` or when stuck, after the restart delay after an error (a
   * script that fails to load would fail again).
   */
  #died(slot, reason) {
    if (this.#slots[slot.at] !== slot || this.#destroyed) return;
    this.#end(slot.at, true);
    this.#listeners.emit("replaced", { worker: slot.worker, reason });
    if (reason === "error") this.#later(slot.at);
    else this.#start(slot.at);
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

/**
 * Calls `ended` when anyone calls `worker.terminate()`, until what it
 * returns is called. No event tells a page that a worker it terminated
 * has gone; the worker's Web Lock tells it only once the worker has said
 * hello, so a worker terminated while it loads would leave its calls
 * waiting for their timeout.
 */
function onTerminate(worker, ended) {
  const own = Object.getOwnPropertyDescriptor(worker, "terminate");
  const terminate = worker.terminate;
  if (typeof terminate !== "function") return () => {};
  let watching = true;
  worker.terminate = (...args) => {
    const result = terminate.apply(worker, args);
    if (watching) ended();
    return result;
  };
  return () => {
    watching = false;
    if (own === undefined) delete worker.terminate;
    else Object.defineProperty(worker, "terminate", own);
  };
}

function destroyedError() {
  return new RPCError(ErrorCode.DESTROYED, "The worker pool was destroyed");
}

// As a Peer's call ends on the same events ("Request aborted: <method>", the reason as data).
function abortedError(call, signal) {
  return new RPCError(ErrorCode.REQUEST_CANCELLED, `Request aborted: ${call.method}`, signal.reason);
}

function waitTimeoutError(call) {
  return new RPCError(ErrorCode.REQUEST_TIMEOUT, `Request timed out before it could be sent: no worker of the pool was free: ${call.method}`);
}

function defaultSize() {
  const cores = globalThis.navigator?.hardwareConcurrency;
  return Number.isInteger(cores) && cores > 1 ? cores - 1 : 1;
}

/**
 * A pool of `options.size` workers made by `factory` (`() => new Worker(url,
 * { type: "module" })`), behind one client. Options: `size` (the cores less
 * one), `maxInFlightPerWorker` (1), `timeoutGrace` (1000 ms), `peer` (each
 * worker's Peer options), `module` (a compiled `WebAssembly.Module` posted
 * to each worker first).
 */
export function workerPool(factory, options) {
  return new WorkerPool(factory, options);
}
