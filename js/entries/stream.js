// `wiggum-rpc/stream`: `peer.stream(method, params)`, a request as an async
// iterator (or a ReadableStream) of its chunks with the final result beside
// it. A chunk counts as taken when the reader takes it: the request's
// `window` (default 16) bounds how far the producer runs ahead. Importing the
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

const WINDOW = 16;

// `start(options)` makes the request with `onChunk`, `window` and `signal` filled in.
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
  // Each chunk waits until the reader takes it; its promise settling lets the producer send another.
  const onChunk = (chunk) => {
    options?.onChunk?.(chunk);
    return new Promise((taken) => {
      chunks.push({ chunk, taken });
      wake?.();
    });
  };
  const result = start({ window: WINDOW, ...options, signal: controller.signal, onChunk });
  const finish = () => {
    done = true;
    outer?.removeEventListener("abort", forward);
    wake?.();
  };
  result.then(finish, (error) => {
    failure = error;
    finish();
  });
  const streamed = {
    result,
    cancel(reason) {
      controller.abort(reason);
    },
    get readable() {
      const reader = streamed[Symbol.asyncIterator]();
      return new ReadableStream(
        {
          async pull(stream) {
            const { value, done: finished } = await reader.next();
            if (finished) stream.close();
            else stream.enqueue(value);
          },
          async cancel(reason) {
            controller.abort(reason);
            await reader.return?.();
          },
        },
        { highWaterMark: 0 },
      );
    },
    async *[Symbol.asyncIterator]() {
      try {
        for (;;) {
          if (chunks.length > 0) {
            const { chunk, taken } = chunks.shift();
            taken();
            yield chunk;
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
  return streamed;
}
