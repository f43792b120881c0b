// `wiggum-rpc/stream`: `peer.stream(method, params)`, a request as an async
// iterator of its chunks with the final result beside it. Importing the
// entry adds the method to the calling classes (the entry's last lines,
// written by the build, call `installStream` with the root entry's
// classes). The chunks themselves (`onChunk`, `emit`) are the root's: this
// is sugar over `request`.

/** Adds `stream()` to the calling classes. */
export function installStream({ JSONRPCClient, Peer }) {
  for (const calls of [JSONRPCClient, Peer]) {
    calls.prototype.stream = function stream(method, params, options) {
      return streamCall((withChunks) => this.request(method, params, withChunks), options);
    };
  }
}

// `start(options)` makes the request with `onChunk` and `signal` filled in.
function streamCall(start, options) {
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
  const result = start({ ...options, signal: controller.signal, onChunk });
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
