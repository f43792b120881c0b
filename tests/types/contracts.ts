// Compiled by tsc against the web build's declarations, never run: a
// handler's params and result are typed by its schemas (zod, valibot, a
// hand-written Standard Schema), a contract types both `implement()` and
// `remote(contract)`, and the trace hook's records are typed. Each expected
// error must meet an error, or tsc fails: the types are not `any`.
import { z } from "zod";
import * as v from "valibot";
import { Peer, type StandardSchemaV1, type TraceRecord } from "../../pkg-web/wiggum_rpc.js";
import type { RemoteOf } from "../../pkg-web/remote.js";
import "../../pkg-web/remote.js";

declare const port: MessagePort;
const records: TraceRecord[] = [];
const peer = new Peer({ send() {}, onMessage() {} }, {
  trace: (record) => {
    records.push(record);
    if ("direction" in record) {
      const rtt: number | undefined = record.rtt;
      void rtt;
    } else {
      // @ts-expect-error events are named
      const typo: typeof record.event = "timeot";
      void typo;
    }
  },
  openrpc: { title: "types", version: "1.0.0" },
});
void port;

// zod: params inferred from the schema, the handler's return checked against the result schema.
peer.method("add", ({ a, b }) => a + b, { params: z.object({ a: z.number(), b: z.number().default(1) }), result: z.number() });
peer.method("shout", ({ text }) => {
  // @ts-expect-error text is a string
  text.toFixed();
  return text.toUpperCase();
}, { params: z.object({ text: z.string() }) });
// @ts-expect-error the result schema wants a number
peer.method("wrong", ({ a }) => `${a}`, { params: z.object({ a: z.number() }), result: z.number() });

// valibot: the same, through its own Standard Schema types.
peer.method("join", ([words, glue]) => words.join(glue), { params: v.tuple([v.array(v.string()), v.string()]) });
// @ts-expect-error words are strings
peer.method("sum", ([words]) => words.reduce((total: number, word: number) => total + word, 0), { params: v.tuple([v.array(v.string())]) });

// A hand-written schema.
const positive: StandardSchemaV1<number, number> = {
  "~standard": {
    version: 1,
    vendor: "hand-made",
    validate: (value) => (typeof value === "number" && value > 0 ? { value } : { issues: [{ message: "positive" }] }),
  },
};
peer.onNotify("count", (n) => {
  n.toFixed();
}, { params: positive });
// Without schemas, as before: params typed by the caller, or unknown.
peer.method<{ id: number }, string>("get", ({ id }) => String(id));
peer.method("anything", (params) => params, { description: "no schema" });

// One contract for both sides.
const contract = {
  add: { params: z.object({ a: z.number(), b: z.number() }), result: z.number() },
  greet: { params: v.object({ name: v.string() }), result: v.string(), description: "Greets" },
};
peer.implement(contract, { add: ({ a, b }) => a + b, greet: ({ name }) => `hello ${name}` });
// @ts-expect-error greet's handler gets { name: string }
peer.implement(contract, { greet: ({ name }: { name: number }) => `${name}` });
const api: RemoteOf<typeof contract> = peer.remote(contract);
export const sum: Promise<number> = api.add({ a: 1, b: 2 });
export const hello: Promise<string> = api.greet({ name: "Ada" }, { timeout: 100 });
// @ts-expect-error b is missing
api.add({ a: 1 });
// @ts-expect-error the result is a number
export const notString: Promise<string> = api.add({ a: 1, b: 2 });
