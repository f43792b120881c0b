// Types of `wiggum-rpc/redis` (redis.js): the engine of a hub across processes on Redis.
/**
 * Node only: `redisCluster()`, the engine that makes the hubs of many
 * processes one hub, over one Redis (pub/sub, and a lease per process).
 * Needs the `ioredis` package.
 *
 * @module wiggum-rpc/redis
 */

import type { ClusterEngine } from "./hub.js";

export interface RedisClusterOptions {
  /** The Redis server, as ioredis reads it (`redis://127.0.0.1:6379`); ioredis's default when left out. */
  url?: string;
  /**
   * How long a process's lease lasts, in ms (5000; at least 100); it is
   * renewed every quarter of it, and the leases are checked as often. A
   * process whose lease lapsed is announced gone: within about
   * `lease * 1.25` of its death. A process that stops for less than
   * `lease * 0.75` (a pause, a long GC) loses no client.
   */
  lease?: number;
  /** What the keys and channels are named under: one cluster per prefix ("wiggum-rpc"). */
  prefix?: string;
  /** This process's id in the cluster (a random UUID). */
  node?: string;
  /** More ioredis options (the engine's own: `enableOfflineQueue: false`, `maxRetriesPerRequest: 0`, `commandTimeout: lease / 2`, `lazyConnect: true`). */
  redis?: Record<string, unknown>;
}

/** A hub's cluster engine on Redis. */
export interface RedisCluster extends ClusterEngine {
  /** Resolves once this process has joined the cluster (subscribed, leased, learnt the others' clients). */
  readonly ready: Promise<void>;
  /** Set by `destroy()` (which the hub's `destroy()` calls): resolves once the connections to Redis are closed. */
  readonly closed: Promise<void> | undefined;
  /** What this process has in flight: its calls to other processes' clients, the calls it runs for them, its relayed sockets. */
  readonly pending: { calls: number; serving: number; relays: number };
}

/**
 * The engine of a hub across processes on Redis:
 * `new Hub({ cluster: redisCluster({ url, lease }) })`. Calls, notifications
 * and presence go between processes over pub/sub, as JSON; a call to a
 * client of a process that is gone, or while Redis is unreachable, rejects
 * with an `RPCError` of code `CONNECTION_CLOSED`.
 */
export function redisCluster(options?: RedisClusterOptions): RedisCluster;
