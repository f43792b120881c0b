// Types of `wiggum-rpc/remote` (remote.js): importing the entry adds
// `remote()` and `expose()` to the root entry's classes, and these
// declarations to their types.
import type {} from "./wiggum_rpc.js";

/**
 * The remote side as an object: each function becomes a request with
 * positional params, each nested object a `Name.` prefix.
 */
export type Remote<T> = {
  readonly [K in keyof T]: T[K] extends (...args: infer A) => infer R
    ? (...args: A) => Promise<Awaited<R>>
    : T[K] extends object ? Remote<T[K]> : never;
};

declare module "./wiggum_rpc.js" {
  interface Calls {
    /** The other side as an object: `remote<API>().Repo.get(1)` requests `Repo.get` with `[1]`. */
    remote<API = Record<string, unknown>>(): Remote<API>;
  }
  interface Serves {
    /**
     * Serves the object's public methods (own and inherited, not
     * underscore-prefixed) as `name.method`: positional params are spread as
     * arguments, named params passed as one object.
     */
    expose(instance: object, name: string): void;
  }
}
