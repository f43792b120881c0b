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
  endpoint.method("uncloneable", () => ({ callback() {} }));
  endpoint.method("bytes", ([length]) => {
    const bytes = new Uint8Array(length).map((_, i) => i % 251);
    return transfer({ bytes }, [bytes.buffer]);
  });
  endpoint.method("byteLength", ([buffer]) => buffer.byteLength);
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
