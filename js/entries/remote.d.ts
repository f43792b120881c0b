// Types of `wiggum-rpc/remote` (remote.js): importing the entry adds
// `remote()`, `expose()` and `implement()` to the root entry's classes, and
// these declarations to their types.
/**
 * Importing this entry adds `remote<API>()`, `expose()` and `implement()` to the root entry's classes.
 *
 * @module wiggum-rpc/remote
 */

import type {
  JSONRPCClient,
  JSONRPCServer,
  MethodHandler,
  MethodInfo,
  Peer,
  RequestOptions,
  SchemaInput,
  SchemaOutput,
  StandardSchemaV1,
} from "./wiggum_rpc.js";

/**
 * The remote side as an object: each function becomes a request with
 * positional params, each nested object a `Name.` prefix.
 */
export type Remote<T> = {
  readonly [K in keyof T]: T[K] extends (...args: infer A) => infer R
    ? (...args: A) => Promise<Awaited<R>>
    : T[K] extends object ? Remote<T[K]> : never;
};

/** One method of a contract: its schemas and description (and, on the server, perhaps its handler). */
export interface MethodContract extends MethodInfo {
  params?: StandardSchemaV1;
  result?: StandardSchemaV1;
  handler?: MethodHandler<any, any>;
}

/** Methods by name: one definition shared by server (`implement`) and client (`remote(contract)`). */
export type Contract = { readonly [method: string]: MethodContract };

/** What a caller passes as a method's params: its params schema's input. */
export type ParamsOf<M> = M extends { params: infer S } ? SchemaInput<S> : unknown;
/** What a call of the method resolves to: its result schema's output, else what its handler returns. */
export type ResultOf<M> = M extends { result: infer S }
  ? SchemaOutput<S>
  : M extends { handler: (...args: any[]) => infer R } ? Awaited<R> : unknown;

/** The client of a contract: one function per method, taking the params as they go on the wire. */
export type RemoteOf<C> = {
  readonly [K in keyof C]: (params: ParamsOf<C[K]>, options?: RequestOptions) => Promise<ResultOf<C[K]>>;
};

/** The handlers of a contract's methods, typed by its schemas. */
export type Handlers<C> = {
  [K in keyof C]: MethodHandler<
    C[K] extends { params: infer S } ? SchemaOutput<S> : unknown,
    C[K] extends { result: infer S } ? SchemaInput<S> : unknown
  >;
};

declare module "./wiggum_rpc.js" {
  interface Calls {
    /** The other side as an object: `remote<API>().Repo.get(1)` requests `Repo.get` with `[1]`. */
    remote<API = Record<string, unknown>>(): Remote<API>;
    /**
     * The client of a contract (the server's method table, or the schemas it
     * was built from): `remote(contract).add({ a: 1, b: 2 })` requests `add`
     * with those params; types come from the contract's schemas.
     */
    remote<C extends Contract>(contract: C): RemoteOf<C>;
  }
  interface Serves {
    /**
     * Serves the object's public methods (own and inherited, not
     * underscore-prefixed) as `name.method`: positional params are spread as
     * arguments, named params passed as one object. `contract` gives methods
     * (by their own names) schemas and descriptions.
     */
    expose(instance: object, name: string, contract?: { readonly [method: string]: MethodInfo }): void;
    /**
     * Serves each method of the contract with its schemas checked: the
     * handler from `handlers`, or the contract's own `handler`.
     */
    implement<C extends Contract>(contract: C, handlers?: Partial<Handlers<C>>): void;
  }
}

/** A function or object marked to be sent by reference (see `reference`). */
export interface Reference<T extends object> {
  readonly target: T;
}

/**
 * Marks a function or an object to be sent by reference in a call's params
 * or a result: the other side gets a stub that calls it here (`await
 * stub(…)`, `await stub.method(…)`) until it releases it (`stub.release()`,
 * `using`). Works between wiggum-rpc Peers that both import this entry, in
 * a build that takes references (its Cargo feature `references`); elsewhere
 * it throws a TypeError.
 */
export function reference<T extends object>(target: T): Reference<T>;

/**
 * How many of this side's targets the other side of `endpoint` holds, and
 * how many stubs of the other side's this side holds, as the module counts them.
 */
export function referencesHeld(endpoint: JSONRPCClient | JSONRPCServer | Peer): [number, number];
