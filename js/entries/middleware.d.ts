// Types of `wiggum-rpc/middleware`: the chains around every call, and retries that are safe.
/**
 * Importing this entry adds `use()` (middleware around the calls an
 * endpoint serves) and `intercept()` (around the calls it makes) to the
 * classes; `retry()` and `idempotency()` make retries safe.
 *
 * @module wiggum-rpc/middleware
 */
import type { Interceptor, Middleware } from "./wiggum_rpc.js";

declare module "./wiggum_rpc.js" {
  interface Calls {
    /**
     * Adds an interceptor around the calls this side makes (in the order
     * added, the first outermost): `next()` makes the call as `call` then
     * says, again when called again (a retry).
     */
    intercept(interceptor: Interceptor): this;
  }
  interface Serves<Ctx extends object = {}> {
    /**
     * Adds a middleware around the calls this side serves and the
     * notifications it handles (in the order added, the first outermost).
     * Returns this endpoint, typed with what the middleware adds (`Added`)
     * in the context of the handlers registered from then on.
     */
    use<Added extends object = {}>(middleware: Middleware<Ctx, Added>): Serves<Ctx & Added> & this;
  }
}

export interface RetryOptions {
  /** Attempts in all, the first included (3). */
  attempts?: number;
  /** The wait before the second attempt, in ms (100). */
  delay?: number;
  /** Each wait is this many times the one before (2). */
  factor?: number;
  /** The longest wait, in ms (5,000). */
  maxDelay?: number;
  /** The error codes a call is made again after (CONNECTION_CLOSED, SEND_FAILED, REQUEST_TIMEOUT). */
  on?: number[];
}

/**
 * An interceptor that makes a call marked `idempotent: true` (or given a
 * `meta.idempotencyKey`) again after a lost connection, an unsent call or
 * a timeout, each attempt with the same idempotency key. Other calls go once.
 */
export function retry(options?: RetryOptions): Interceptor;

export interface IdempotencyOptions {
  /** The keys remembered, the oldest forgotten first (1,000). */
  maxKeys?: number;
  /** How long a key is remembered, in ms (10 minutes). */
  ttl?: number;
  /** What keeps keys apart (by default the hub's client id: `context.client`). */
  scope?: (call: Parameters<Middleware<{ client?: string }>>[0]) => unknown;
}

/**
 * A middleware that runs a call's handler once per idempotency key
 * (`meta.idempotencyKey`): the same key again gets the first answer. A key
 * used again with other params is refused with INVALID_PARAMS.
 */
export function idempotency(options?: IdempotencyOptions): Middleware;
