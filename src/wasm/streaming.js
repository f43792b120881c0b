// Streamed calls: `peer.stream(method, params)` as an async iterator of
// chunks with the final result beside it.

/** The endpoint's signal that makes a request (boundary.rs, `signal::REQUEST`). */
const REQUEST = 8;

// The request goes out through the endpoint's callback `signal`, with
// `onChunk` and `signal` filled into its options.
export function streamCall(endpoint, method, params, options) {
  const chunks = [];
  let wake = null;
  let done = false;
  let failure;
  const controller = new AbortController();
  // The caller's own signal aborts the call too, until the call is over.
  const outer = options?.signal;
  const forward = () => controller.abort(outer.reason);
  if (outer?.aborted) controller.abort(outer.reason);
  else outer?.addEventListener("abort", forward, { once: true });
  const onChunk = (chunk) => {
    chunks.push(chunk);
    options?.onChunk?.(chunk);
    wake?.();
  };
  const result = endpoint(REQUEST, 0, [method, params, { ...options, signal: controller.signal, onChunk }]);
  const finish = () => {
    done = true;
    outer?.removeEventListener("abort", forward);
    wake?.();
  };
  result.then(finish, (error) => {
    failure = error;
    finish();
  });
  return {
    result,
    cancel(reason) {
      controller.abort(reason);
    },
    async *[Symbol.asyncIterator]() {
      try {
        for (;;) {
          if (chunks.length > 0) {
            yield chunks.shift();
          } else if (done) {
            if (failure !== undefined) throw failure;
            return;
          } else {
            await new Promise((resolve) => (wake = resolve));
            wake = null;
          }
        }
      } finally {
        // Leaving the loop early (break, return, a throw) cancels the call.
        if (!done) controller.abort();
      }
    },
  };
}
