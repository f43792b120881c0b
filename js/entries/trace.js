// The trace hook (the `trace` option): every JSON-RPC message in and out as
// it crosses the transport, answers to this side's calls with their
// round-trip time, and what happens on this side only (a timeout, a cancel,
// an answer that could not be sent, a schema's verdict). Observation only:
// nothing here changes what goes on the wire, and nothing here reads what a
// message is: the endpoint says which of its calls went out (`sent`) and
// which an incoming message answers (`received`).
//
// Importing `wiggum-rpc/trace` is what makes the option work (the entry's
// last lines, written by the build, call `installTrace` with the root
// entry's `extensions`); a page that never imports it loads none of this.

/** Makes the `trace` option work on every endpoint of the page. */
export function installTrace({ extensions }) {
  extensions.observer = { option: "trace", make: tracer };
}

// The endpoint's tracer around the user's hook; `methodOf(calls, id)` is
// the method of a call of this side's still waiting.
function tracer(hook, methodOf) {
  if (typeof hook !== "function") throw new TypeError("trace must be a function");
  // This side's calls on the wire: id → [when it went out, its method].
  const started = new Map();
  const report = (record) => {
    try {
      hook(record);
    } catch (error) {
      // A throwing hook is the hook's bug; it must not unwind through wasm.
      queueMicrotask(() => {
        throw error;
      });
    }
  };
  // A batch is traced member by member, each with `batch: { index, size }`.
  const each = (message, visit) => {
    if (!Array.isArray(message)) visit(message, undefined);
    else message.forEach((one, index) => visit(one, { index, size: message.length }));
  };
  const record = (direction, message, time, batch) =>
    batch ? { direction, message, time, batch } : { direction, message, time };
  return {
    // This side's call `id` to `method` is going out now.
    sent(id, method) {
      started.set(id, [performance.now(), method]);
    },
    out(message) {
      const time = performance.now();
      each(message, (one, batch) => report(record("out", one, time, batch)));
    },
    // `calls`: the call of this side's the message answers (for a batch, an
    // array with one per member), as the endpoint read it, or undefined.
    received(message, calls) {
      const time = performance.now();
      each(message, (one, batch) => {
        const traced = record("in", one, time, batch);
        const call = batch === undefined ? calls : calls?.[batch.index];
        const start = call === undefined ? undefined : started.get(call);
        if (start !== undefined) {
          started.delete(call);
          traced.rtt = time - start[0];
          traced.method = start[1];
        }
        report(traced);
      });
    },
    // A call of this side's (numbered `id`, among the endpoint's `calls`) ended without an answer.
    failed(event, id, calls, detail) {
      this.local(event, id, methodOf(calls, id), detail);
    },
    // `id` is a call of this side's (its entry ends here) or undefined.
    local(event, id, method, detail) {
      const traced = { event, time: performance.now() };
      const start = id === undefined ? undefined : started.get(id);
      if (start !== undefined) started.delete(id);
      if (id !== undefined) traced.id = id;
      method ??= start?.[1];
      if (method !== undefined) traced.method = method;
      if (detail !== undefined) traced.detail = detail;
      report(traced);
    },
  };
}
