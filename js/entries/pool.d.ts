// Types of `wiggum-rpc/pool` (pool.js): a pool of workers behind one client.
/**
 * `workerPool`: several workers behind one client, each call on the least busy, a dead worker replaced.
 *
 * @module wiggum-rpc/pool
 */

import type { EndpointOptions, NotifyOptions, Params, RequestOptions, Transfer } from "./wiggum_rpc.js";
import type { Contract, Remote, RemoteOf } from "./remote.js";

export interface WorkerPoolOptions {
  /** How many workers (the machine's cores less one, at least 1). */
  size?: number;
  /** Each worker's Peer options (`timeout`, `trace`, …). */
  peer?: EndpointOptions;
  /** A compiled module posted to each worker first, so it starts without fetching it (`compiledModule()`). */
  module?: WebAssembly.Module;
}

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
  /** The factory threw (or returned no Worker): the slot tries again, 50 ms later and doubling up to 5 s. */
  error: { error: unknown };
  /** A worker ended (`error`: its error event; `gone`: terminated or its end noticed) and a new one took its place. */
  replaced: { worker: Worker; reason: "error" | "gone" };
}

/** Several workers behind one client: the same `request` / `notify` / `remote()` as a Peer. */
export interface WorkerPool {
  /** On the worker with the fewest calls in flight. Rejects with `RPCError` as a Peer's call does. */
  request<T = unknown>(method: string, params?: Params | Transfer<Params>, options?: PoolRequestOptions): Promise<T>;
  /** To the least busy worker, or every one with `{ all: true }`; returns how many it went to. */
  notify(method: string, params?: Params | Transfer<Params>, options?: PoolNotifyOptions): number;
  /** The workers as one object: `pool.remote<API>().build(files)`. */
  remote<API = Record<string, unknown>>(): Remote<API>;
  remote<C extends Contract>(contract: C): RemoteOf<C>;
  on<E extends keyof WorkerPoolEvents>(event: E, listener: (detail: WorkerPoolEvents[E]) => void): () => void;
  /** Ends every worker; calls in flight fail with `DESTROYED`. */
  destroy(): void;
  readonly size: number;
  /** The workers running now. */
  readonly workers: Worker[];
  /** Calls in flight and waiting, over all workers. */
  readonly pending: number;
}

/**
 * A pool of workers made by `factory` (`() => new Worker(url, { type: "module" })`),
 * each serving over `selfTransport()`.
 */
export function workerPool(factory: () => Worker, options?: WorkerPoolOptions): WorkerPool;
