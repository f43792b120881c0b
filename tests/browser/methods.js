// Methods every fixture serves (main page, worker, iframe), so each boundary
// is exercised by the same handlers.

export function serveFixtures(endpoint, { RPCError, transfer }) {
  endpoint.method("add", ([a, b]) => a + b);
  endpoint.method("addLater", async ([a, b]) => {
    await new Promise((resolve) => setTimeout(resolve, 5));
    return a + b;
  });
  endpoint.method("echo", (params) => params);
  endpoint.method("echoAsync", async ([value]) => value);
  endpoint.method("describe", (params) => describeValue(params));
  endpoint.method("nothing", () => undefined);
  endpoint.method("never", () => new Promise(() => {}));
  endpoint.method("wait", ([ms]) => new Promise((resolve) => setTimeout(() => resolve(ms), ms)));
  endpoint.method("fail", ([code, message, data]) => {
    throw new RPCError(code, message, data);
  });
  endpoint.method("failAsync", async ([code, message, data]) => {
    throw new RPCError(code, message, data);
  });
  endpoint.method("throwPlain", () => {
    throw new TypeError("plain failure");
  });
  endpoint.method("throwValue", ([value]) => {
    throw value;
  });
  // Errors that carry more than a message: a name, a cause chain, fields.
  endpoint.method("throwWhole", () => {
    const root = new RangeError("disk full");
    root.errno = 28;
    const error = new TypeError("build failed", { cause: root });
    error.file = "src/App.tsx";
    error.line = 3;
    error.callback = () => {}; // not data: left out
    throw error;
  });
  endpoint.method("throwAggregate", async () => {
    throw new AggregateError([new Error("first"), new SyntaxError("second")], "two failures");
  });
  endpoint.method("throwOdd", ([kind]) => {
    const error = new Error(`odd ${kind}`);
    if (kind === "self") error.cause = error;
    if (kind === "deep") {
      let cause = new Error("bottom");
      for (let depth = 0; depth < 10000; depth++) cause = new Error(`level ${depth}`, { cause });
      error.cause = cause;
    }
    if (kind === "getter") Object.defineProperty(error, "broken", { enumerable: true, get: () => { throw new Error("no"); } });
    if (kind === "node" && typeof document !== "undefined") error.node = document.createElement("div");
    throw error;
  });
  endpoint.method("uncloneable", () => ({ callback() {} }));
  endpoint.method("bytes", ([length]) => {
    const bytes = new Uint8Array(length).map((_, i) => i % 251);
    return transfer({ bytes }, [bytes.buffer]);
  });
  endpoint.method("byteLength", ([buffer]) => buffer.byteLength);
  // A build of `steps` steps of `every` ms, reporting each through its call.
  endpoint.method("buildWithProgress", async ([steps, every, tag], { progress }) => {
    for (let step = 1; step <= steps; step++) {
      await new Promise((resolve) => setTimeout(resolve, every));
      progress({ step, of: steps, tag });
    }
    return `built ${tag ?? ""}`.trim();
  });
  // `count` progress reports in one go, then the answer.
  endpoint.method("progressFlood", ([count], { progress }) => {
    for (let step = 1; step <= count; step++) progress(step);
    return "flooded";
  });
  // Works for ever, visibly.
  endpoint.method("endlessProgress", async ([every], { progress, signal }) => {
    for (let step = 1; !signal.aborted; step++) {
      await new Promise((resolve) => setTimeout(resolve, every));
      progress(step);
    }
  });
  endpoint.method("whereAmI", () => (typeof WorkerGlobalScope !== "undefined" ? "worker" : String(self.origin)));
}

/** What a value is on arrival: its constructor and content, as plain data. */
export function describeValue(value) {
  if (Array.isArray(value)) return value.map(describeValue);
  if (value instanceof Uint8Array) return { type: "Uint8Array", content: Array.from(value) };
  if (value instanceof ArrayBuffer) return { type: "ArrayBuffer", content: Array.from(new Uint8Array(value)) };
  if (value instanceof Map) return { type: "Map", content: Array.from(value, ([k, v]) => [k, describeValue(v)]) };
  if (value instanceof Date) return { type: "Date", content: value.toISOString() };
  if (value instanceof Blob) return { type: "Blob", content: value.size };
  if (value && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, describeValue(v)]));
  }
  return value;
}
