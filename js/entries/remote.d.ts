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
    ? (...args: Passed<A>) => Promise<Returned<R>>
    : T[K] extends object ? Remote<T[K]> : never;
};

/**
 * The params of a call as the caller passes them: where the other side's
 * handler takes a `Stub<T>`, the caller passes `reference(t)` (or a stub it holds).
 */
export type Passed<A extends readonly unknown[]> = {
  [I in keyof A]: A[I] extends { readonly [stubbed]: infer T } ? Reference<T & object> | A[I] : A[I];
};

/** What a call resolves with: a `reference(t)` the handler returns arrives as a `Stub<T>`. */
export type Returned<R> = Awaited<R> extends Reference<infer T> ? Stub<T> : Awaited<R>;

declare const stubbed: unique symbol;
// `Symbol.dispose` where the program's lib has it (ES2022's has not).
type DisposeKey = SymbolConstructor extends { readonly dispose: infer D extends symbol } ? D : never;

/** What every stub has beside its calls. */
export type StubControls = {
  /**
   * Releases the stub: true the first time, false after. The owner keeps the
   * target until every holder has released it; a call after release fails.
   */
  release(): boolean;
} & { readonly [K in DisposeKey]: () => void };

/**
 * A function or object of the other side, held by reference: `await
 * stub(…)`, `await stub.method(…)` each make a call over the connection it
 * came by (with its timeouts, cancellation and errors). Release it
 * (`release()`, `using`) when done; every stub fails with
 * `CONNECTION_CLOSED` once the connection ends.
 */
export type Stub<T> = StubCalls<T> & StubControls & {
  /** The target's type (for the types only: the symbol is not exported). */
  readonly [stubbed]: T;
};

/** A stub's calls: the function's own, and each method's, each a promise. */
export type StubCalls<T> = (T extends (...args: infer A) => infer R ? (...args: Passed<A>) => Promise<Returned<R>> : unknown) & {
  readonly [K in keyof T as T[K] extends (...args: never[]) => unknown ? K : never]: T[K] extends (...args: infer A) => infer R
    ? (...args: Passed<A>) => Promise<Returned<R>>
    : never;
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
 * `using`). Works between wiggum-rpc Peers that both import this entry
 * from the package's references flavour (`wiggum-rpc/references/remote`,
 * with every other entry from `wiggum-rpc/references`); the plain
 * `wiggum-rpc/remote` leaves references out, and there it throws a TypeError.
 */
export function reference<T extends object>(target: T): Reference<T>;

/**
 * How many of this side's targets the other side of `endpoint` holds, and
 * how many stubs of the other side's this side holds, as the module counts them.
 */
export function referencesHeld(endpoint: JSONRPCClient | JSONRPCServer | Peer): [number, number];
/**
 * A stub's calls with a request's options: `withOptions(stub, { signal })(…)`,
 * `withOptions(project, { timeout: 500 }).readFile(…)`. The stub's lifetime
 * is unchanged: release the stub itself.
 */
export function withOptions<T>(stub: Stub<T>, options: RequestOptions): StubCalls<T>;
export {};
