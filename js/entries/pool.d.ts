// Types of `wiggum-rpc/pool` (pool.js): a pool of workers behind one client.
/**
 * `workerPool`: several workers behind one client, each call on the first worker free, a dead or stuck worker replaced.
 *
 * @module wiggum-rpc/pool
 */

import type { EndpointOptions, NotifyOptions, Params, RequestOptions, Transfer } from "./wiggum_rpc.js";
import type { Contract, Remote, RemoteOf } from "./remote.js";

export interface WorkerPoolOptions {
  /** How many workers (the machine's cores less one, at least 1). */
  size?: number;
  /**
   * How many calls a worker is given at a time (1): the others wait in the
   * pool, and each goes to whichever worker is free first. More suits
   * handlers that mostly wait (a fetch, a timer); `Infinity` gives every call
   * to the least busy worker at once.
   */
  maxInFlightPerWorker?: number;
  /**
   * After one of its calls timed out, how long in ms a worker has to send
   * anything (that call's late answer, another's, progress) before it is
   * taken for stuck (its thread in a loop, a synchronous job that outlived
   * its caller): then it is terminated and replaced, and its other calls
   * fail with `CONNECTION_CLOSED` (or go to another worker, with `retry`).
   * Until then the call keeps its place on that worker. 1000; `0`: at the
   * timeout; `Infinity`: never.
   */
  timeoutGrace?: number;
  /** Each worker's Peer options (`timeout`, `trace`, …). */
  peer?: EndpointOptions;
  /** A compiled module posted to each worker first, so it starts without fetching it (`compiledModule()`). */
  module?: WebAssembly.Module;
}

/**
 * A Peer's call options; `timeout` and `maxTotalTimeout` count from the
 * call, its wait in the pool included (a call whose time is up before a
 * worker is free rejects with `REQUEST_TIMEOUT` and is never sent), and a
 * `signal` that aborts while the call waits rejects it with
 * `REQUEST_CANCELLED`, never sent.
 */
export interface PoolRequestOptions extends RequestOptions {
  /**
   * The call is safe to run twice: if its worker dies before answering, it
   * goes to another (up to once more than the pool has workers) rather
   * than failing with `CONNECTION_CLOSED`.
   */
  retry?: boolean;
}

export interface PoolNotifyOptions extends NotifyOptions {
  /** Every worker, rather than the least busy one. */
  all?: boolean;
}

export interface WorkerPoolEvents {
  /**
   * The factory threw (or returned no Worker): the slot tries again, 50 ms
   * later and doubling up to 5 s, each slot on its own, until a worker it
   * started answers a call.
   */
  error: { error: unknown };
  /**
   * A worker ended, and its slot is to be filled: told as it ends, before
   * any new worker exists. `worker`: the one that ended. `reason`: `error`,
   * its error event (the slot starts a new one after its restart delay);
   * `gone`, terminated or its end noticed, or `stuck`, a call of its timed
   * out and it sent nothing within `timeoutGrace`, so the pool terminated it
   * (a new one starts at once). If the factory then throws, `error` follows
   * and no worker takes the place until the factory gives one.
   */
  replaced: { worker: Worker; reason: "error" | "gone" | "stuck" };
}

/** Several workers behind one client: the same `request` / `notify` / `remote()` as a Peer. */
export interface WorkerPool {
  /** On the first worker free (it waits in the pool until one is). Rejects with `RPCError` as a Peer's call does. */
  request<T = unknown>(method: string, params?: Params | Transfer<Params>, options?: PoolRequestOptions): Promise<T>;
  /** At once (never waiting in the pool) to the least busy worker, or every one with `{ all: true }`; returns how many it went to. */
  notify(method: string, params?: Params | Transfer<Params>, options?: PoolNotifyOptions): number;
  /** The workers as one object: `pool.remote<API>().build(files)`. */
  remote<API = Record<string, unknown>>(): Remote<API>;
  remote<C extends Contract>(contract: C): RemoteOf<C>;
  on<E extends keyof WorkerPoolEvents>(event: E, listener: (detail: WorkerPoolEvents[E]) => void): () => void;
  /** Ends every worker; calls in flight and waiting fail with `DESTROYED`. */
  destroy(): void;
  readonly size: number;
  /** The workers running now. A `terminate()` on one of them is its end: the pool replaces it. */
  readonly workers: Worker[];
  /** Calls in flight on the workers and waiting in the pool. */
  readonly pending: number;
}

/**
 * A pool of workers made by `factory` (`() => new Worker(url, { type: "module" })`),
 * each serving over `selfTransport()`.
 */
export function workerPool(factory: () => Worker, options?: WorkerPoolOptions): WorkerPool;
