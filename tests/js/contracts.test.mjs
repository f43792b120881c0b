// Contracts you can see, in Node over real MessageChannels: params and
// results checked by Standard Schema objects from two schema libraries (zod
// and valibot) and hand-written ones (sync, async, throwing, never
// settling), notifications with schemas, `implement()` / `remote(contract)` /
// `expose()` with schemas, `rpc.discover` checked against the OpenRPC
// meta-schema, and the `trace` hook (messages both ways, round-trip times,
// batches, this side's events, a throwing hook).
import { test } from "node:test";
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { z } from "zod";
import * as v from "valibot";
import { toJsonSchema } from "@valibot/to-json-schema";
import Ajv from "ajv";
import openrpcMetaSchema from "@open-rpc/meta-schema";
import jsonSchemaMetaSchema from "@json-schema-tools/meta-schema";

const require = createRequire(import.meta.url);
const lib = require("../../pkg/node/wiggum_rpc.cjs");
require("../../pkg/node/remote.cjs");
require("../../pkg/node/contracts.cjs");
require("../../pkg/node/introspection.cjs");
require("../../pkg/node/trace.cjs");
const { Peer, JSONRPCClient, JSONRPCServer, ErrorCode, portTransport } = lib;

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** A server and a client on the two ends of a MessageChannel; `close()` ends both. */
function pair({ server: serverOptions, client: clientOptions } = {}) {
  const { port1, port2 } = new MessageChannel();
  const server = new JSONRPCServer(portTransport(port1), serverOptions);
  const client = new JSONRPCClient(portTransport(port2), clientOptions);
  return { server, client, close: () => (client.destroy(), server.destroy()) };
}

/** What a call settled with: its result, or `{ code, message, data }`. */
async function outcome(promise) {
  try {
    return { result: await promise };
  } catch (error) {
    return { code: error.code, message: error.message, data: error.data };
  }
}

/** A hand-written Standard Schema: `validate` is the test's. */
const handMade = (validate, vendor = "hand-made") => ({ "~standard": { version: 1, vendor, validate } });

test("zod: valid params reach the handler as the schema's output; invalid ones get -32602 with the issues", async () => {
  const { server, client, close } = pair();
  const seen = [];
  server.method("add", (params) => {
    seen.push(params);
    return params.a + params.b;
  }, { params: z.object({ a: z.number(), b: z.number().default(10) }), result: z.number() });
  try {
    assert.deepEqual(await outcome(client.request("add", { a: 1, b: 2 })), { result: 3 });
    assert.deepEqual(await outcome(client.request("add", { a: 1 })), { result: 11 }, "the default applied");
    const wrong = await outcome(client.request("add", { a: "1", b: [] }));
    assert.equal(wrong.code, ErrorCode.INVALID_PARAMS);
    assert.equal(wrong.message, "Invalid params");
    assert.deepEqual(wrong.data.map((issue) => issue.path), [["a"], ["b"]]);
    assert.ok(wrong.data.every((issue) => typeof issue.message === "string" && issue.message.length > 0));
    const none = await outcome(client.request("add"));
    assert.equal(none.code, ErrorCode.INVALID_PARAMS, "no params against an object schema");
    assert.equal(none.data.length, 1);
    assert.equal(none.data[0].path, undefined, "the issue is about the params as a whole");
    const positional = await outcome(client.request("add", [1, 2]));
    assert.equal(positional.code, ErrorCode.INVALID_PARAMS);
    assert.deepEqual(seen, [{ a: 1, b: 2 }, { a: 1, b: 10 }], "invalid params never reached the handler");
  } finally {
    close();
  }
});

test("valibot: sync and async schemas, a tuple by position, a result that fails its schema", async () => {
  const traced = [];
  const { server, client, close } = pair({ server: { trace: (record) => traced.push(record) } });
  server.method("join", ([words, glue]) => words.join(glue), {
    params: v.tuple([v.array(v.string()), v.optional(v.string(), " ")]),
  });
  const taken = new Set(["ada"]);
  server.method("register", ({ name }) => ({ name, id: name.length }), {
    params: v.objectAsync({
      name: v.pipeAsync(v.string(), v.checkAsync(async (name) => {
        await sleep(5);
        return !taken.has(name);
      }, "name taken")),
    }),
    result: v.object({ name: v.string(), id: v.number() }),
  });
  server.method("broken", () => ({ id: "not a number" }), { result: v.object({ id: v.number() }) });
  server.method("bytes", () => {
    const bytes = new Uint8Array([1, 2, 3]);
    return lib.transfer({ bytes }, [bytes.buffer]);
  }, { result: v.object({ bytes: v.instance(Uint8Array) }) });
  try {
    assert.deepEqual(await outcome(client.request("join", [["a", "b"]])), { result: "a b" });
    assert.deepEqual(await outcome(client.request("join", [["a", "b"], "-"])), { result: "a-b" });
    const wrong = await outcome(client.request("join", [["a", 2]]));
    assert.equal(wrong.code, ErrorCode.INVALID_PARAMS);
    assert.deepEqual(wrong.data.map((issue) => issue.path), [[0, 1]]);
    assert.deepEqual(await outcome(client.request("register", { name: "grace" })), { result: { name: "grace", id: 5 } });
    const takenName = await outcome(client.request("register", { name: "ada" }));
    assert.equal(takenName.code, ErrorCode.INVALID_PARAMS);
    assert.deepEqual(takenName.data, [{ message: "name taken", path: ["name"] }]);
    const { result: moved } = await outcome(client.request("bytes"));
    assert.deepEqual([...moved.bytes], [1, 2, 3], "a transfer()'s value is what the result schema checks");
    const broken = await outcome(client.request("broken"));
    assert.equal(broken.code, ErrorCode.INTERNAL_ERROR);
    assert.equal(broken.data, undefined, "neither the result nor the findings reach the caller");
    const event = traced.find((record) => record.event === "invalid-result");
    assert.equal(event.method, "broken");
    assert.deepEqual(event.detail.map((issue) => issue.path), [["id"]], "the findings are traced on the server");
  } finally {
    close();
  }
});

test("hand-written schemas: one that throws, one that never settles (given up, and cancelled), params undefined", async () => {
  const traced = [];
  const { server, client, close } = pair({ server: { timeout: 300, trace: (record) => traced.push(record) } });
  let ran = 0;
  server.method("throws", () => ran++, { params: handMade(() => {
    throw new Error("schema exploded");
  }) });
  server.method("hangs", () => ran++, { params: handMade(() => new Promise(() => {})) });
  server.method("needsObject", () => ran++, {
    params: handMade((value) => (value !== null && typeof value === "object" && !Array.isArray(value)
      ? { value } : { issues: [{ message: "expected an object" }] })),
  });
  try {
    const thrown = await outcome(client.request("throws", {}));
    assert.deepEqual([thrown.code, thrown.message], [ErrorCode.INTERNAL_ERROR, "schema exploded"]);

    // The caller's own timeout bounds its wait (and, its deadline crossing
    // in the call's metadata, the server ends the check then too) ...
    const short = await outcome(client.request("hangs", {}, { timeout: 100 }));
    assert.equal(short.code, ErrorCode.REQUEST_TIMEOUT);
    // ... and the server gives the check up at its own (300 ms here), answering -32603.
    const started = performance.now();
    const given = await outcome(client.request("hangs", {}, { timeout: 5000 }));
    assert.equal(given.code, ErrorCode.INTERNAL_ERROR);
    assert.match(given.message, /validation timed out/);
    assert.ok(performance.now() - started < 2000, "answered at the server's deadline, not the caller's");
    assert.equal(traced.filter((record) => record.event === "check-timeout").length, 1, "the second check given up at the server's timeout");
    const ended = traced.filter((record) => record.direction === "out" && record.message?.error?.message?.startsWith("Deadline exceeded"));
    assert.equal(ended.length, 1, "the first ended at its caller's 100 ms");

    // A cancel from the caller ends a check that hangs at once.
    const controller = new AbortController();
    const cancelled = client.request("hangs", {}, { signal: controller.signal });
    await sleep(20);
    controller.abort();
    assert.equal((await outcome(cancelled)).code, ErrorCode.REQUEST_CANCELLED);
    await sleep(50);
    const answer = traced.filter((record) => record.direction === "out").at(-1).message;
    assert.equal(answer.error.code, ErrorCode.REQUEST_CANCELLED, "the server answered the cancelled call at once");

    const none = await outcome(client.request("needsObject"));
    assert.deepEqual([none.code, none.data], [ErrorCode.INVALID_PARAMS, [{ message: "expected an object" }]]);
    assert.equal(ran, 0, "no handler ran");
  } finally {
    close();
  }
});

test("notifications with a schema: invalid params are dropped and traced, never answered", async () => {
  const traced = [];
  const { port1, port2 } = new MessageChannel();
  const server = new Peer(portTransport(port1), { trace: (record) => traced.push(record) });
  const client = new Peer(portTransport(port2));
  const heard = [];
  server.onNotify("progress", (params) => heard.push(params), {
    params: z.object({ done: z.number().int(), of: z.number().int().default(100) }),
  });
  server.onNotify("slow", (params) => heard.push(params), {
    params: handMade(async (value) => (await sleep(5), { value: { ...value, checked: true } })),
  });
  try {
    client.notify("progress", { done: 3 });
    client.notify("progress", { done: "three" });
    client.notify("slow", { n: 1 });
    client.notify("progress");
    await sleep(100);
    assert.deepEqual(heard, [{ done: 3, of: 100 }, { n: 1, checked: true }]);
    const dropped = traced.filter((record) => record.event === "invalid-notification");
    assert.equal(dropped.length, 2);
    assert.deepEqual(dropped[0].detail.map((issue) => issue.path), [["done"]]);
    assert.ok(!traced.some((record) => record.direction === "out" && record.message.error), "nothing answered");
  } finally {
    client.destroy();
    server.destroy();
  }
});

test("one contract for both sides: implement() on the server, remote(contract) on the client, expose() with schemas", async () => {
  const contract = {
    add: { params: z.object({ a: z.number(), b: z.number() }), result: z.number(), description: "Adds two numbers" },
    greet: { params: v.object({ name: v.pipe(v.string(), v.minLength(1)) }), result: v.string() },
  };
  const { port1, port2 } = new MessageChannel();
  const server = new Peer(portTransport(port1));
  const client = new Peer(portTransport(port2));
  server.implement(contract, { add: ({ a, b }) => a + b, greet: ({ name }) => `hello ${name}` });
  class Repo {
    read(path, limit) {
      return `${path}:${limit}`;
    }
  }
  server.expose(new Repo(), "Repo", { read: { params: z.tuple([z.string(), z.number().default(10)]) } });
  try {
    const api = client.remote(contract);
    assert.equal(await api.add({ a: 2, b: 3 }), 5);
    assert.equal(await api.greet({ name: "Ada" }), "hello Ada");
    assert.equal((await outcome(api.greet({ name: "" }))).code, ErrorCode.INVALID_PARAMS);
    assert.equal(await client.remote().Repo.read("src"), "src:10", "the tuple's default, then spread");
    assert.equal((await outcome(client.remote().Repo.read(7))).code, ErrorCode.INVALID_PARAMS);
    assert.throws(() => server.implement({ missing: { params: z.object({}) } }, {}), /no handler for missing/);
    const listed = await client.request("listMethods");
    assert.deepEqual(listed.find((method) => method.name === "add"), { name: "add", description: "Adds two numbers" });
    const described = await client.request("describeMethods");
    assert.deepEqual(described.find((method) => method.name === "add").params, ["a", "b"]);
  } finally {
    client.destroy();
    server.destroy();
  }
});

test("rpc.discover: an OpenRPC document valid against the meta-schema, params as JSON Schema where the library gives one", async () => {
  const { server, client, close } = pair({
    server: { openrpc: { title: "test server", version: "2.1.0", description: "schemas from three places" } },
  });
  server.method("add", ({ a, b }) => a + b, {
    params: z.object({ a: z.number(), b: z.number().optional() }), result: z.number(), description: "Adds",
  });
  server.method("pair", ([x, y]) => [y, x], { params: z.tuple([z.string(), z.number()]) });
  server.method("build", () => null, {
    params: v.object({ files: v.record(v.string(), v.string()) }), errors: [ErrorCode.BUILD_FAILED],
  });
  server.method("legacy", () => null, { params: ["level: string"], returns: "string[]" });
  server.method("bare", () => null);
  const converted = pair({
    server: { openrpc: { jsonSchema: (schema, io) => (schema["~standard"].vendor === "valibot" ? toJsonSchema(schema) : undefined) } },
  });
  converted.server.method("build", () => null, { params: v.object({ files: v.record(v.string(), v.string()) }) });
  try {
    const document = await client.request("rpc.discover");
    // The OpenRPC meta-schema refers to its JSON Schema meta-schema by URL: both from npm.
    const ajv = new Ajv({ strict: false, validateSchema: false });
    const { $schema, $id, ...jsonSchemaMeta } = jsonSchemaMetaSchema.default ?? jsonSchemaMetaSchema;
    // It is referred to with and without the trailing slash.
    ajv.addSchema({ ...jsonSchemaMeta, $id });
    ajv.addSchema({ ...jsonSchemaMeta, $id: $id.replace(/\/$/, "") });
    const { $schema: _, ...metaSchema } = openrpcMetaSchema.default ?? openrpcMetaSchema;
    const valid = ajv.validate(metaSchema, document);
    assert.ok(valid, `valid OpenRPC: ${JSON.stringify(ajv.errors)}`);
    assert.ok(!ajv.validate(metaSchema, { ...document, methods: [{ params: [] }] }), "the meta-schema does check");
    assert.equal(document.openrpc, "1.3.2");
    assert.deepEqual(document.info, { title: "test server", version: "2.1.0", description: "schemas from three places" });
    const byName = Object.fromEntries(document.methods.map((method) => [method.name, method]));
    assert.deepEqual(Object.keys(byName), ["listMethods", "describeMethods", "rpc.discover", "add", "pair", "build", "legacy", "bare"]);
    assert.equal(byName.add.description, "Adds");
    assert.equal(byName.add.paramStructure, "by-name");
    assert.deepEqual(byName.add.params.map(({ name, required, schema }) => [name, required, schema.type]),
      [["a", true, "number"], ["b", false, "number"]]);
    assert.equal(byName.add.result.schema.type, "number");
    assert.equal(byName.pair.paramStructure, "by-position");
    assert.deepEqual(byName.pair.params.map(({ schema }) => schema.type), ["string", "number"]);
    // valibot's schemas carry no JSON Schema of their own: a named placeholder ...
    assert.deepEqual(byName.build.params, [{ name: "params", schema: {}, description: "validated by a valibot schema" }]);
    const refs = (method) => method.errors.map(({ $ref }) => $ref.split("/").pop());
    assert.deepEqual(refs(byName.build), ["INVALID_PARAMS", "INTERNAL_ERROR", "REQUEST_CANCELLED", "BUILD_FAILED"]);
    assert.deepEqual(refs(byName.bare), ["INTERNAL_ERROR", "REQUEST_CANCELLED"]);
    assert.equal(byName.legacy.params[0].name, "level");
    assert.equal(byName.legacy.result.description, "string[]");
    const codes = Object.values(document.components.errors).map(({ code }) => code);
    for (const code of [-32700, -32600, -32601, -32602, -32603, -32001, -32002, -32003, -32004, -32005, -32006, -32007, -32008]) {
      assert.ok(codes.includes(code), `components.errors has ${code}`);
    }
    // ... unless the server is given the library's converter.
    const withConverter = await converted.client.request("rpc.discover");
    assert.ok(ajv.validate(metaSchema, withConverter), JSON.stringify(ajv.errors));
    const build = withConverter.methods.find((method) => method.name === "build");
    assert.equal(build.paramStructure, "by-name");
    assert.equal(build.params[0].name, "files");
    assert.equal(build.params[0].schema.type, "object");
    // Off with introspection.
    const quiet = pair({ server: { introspection: false } });
    assert.equal((await outcome(quiet.client.request("rpc.discover"))).code, ErrorCode.METHOD_NOT_FOUND);
    quiet.close();
  } finally {
    close();
    converted.close();
  }
});

test("trace: every message in and out with round-trip times, batch members, this side's events", async () => {
  const onClient = [];
  const onServer = [];
  const { port1, port2 } = new MessageChannel();
  const server = new Peer(portTransport(port1), { trace: (record) => onServer.push(record) });
  const client = new Peer(portTransport(port2), { trace: (record) => onClient.push(record) });
  server.method("echo", (params) => params);
  server.method("hang", () => new Promise(() => {}));
  try {
    await client.request("echo", ["warm"]);
    // Several calls in one turn between friends: one batch after the first.
    const burst = await Promise.all([1, 2, 3].map((n) => client.request("echo", [n])));
    assert.deepEqual(burst, [[1], [2], [3]]);
    assert.equal((await outcome(client.request("hang", [], { timeout: 50 }))).code, ErrorCode.REQUEST_TIMEOUT);
    const controller = new AbortController();
    const aborted = client.request("hang", [], { signal: controller.signal });
    await sleep(10);
    controller.abort();
    await outcome(aborted);
    client.notify("nobody.listens", {});
    await sleep(50);

    const out = onClient.filter((record) => record.direction === "out" && record.message.method === "echo");
    assert.equal(out.length, 4);
    const answers = onClient.filter((record) => record.direction === "in" && "result" in record.message);
    assert.equal(answers.length, 4);
    for (const answer of answers) {
      assert.equal(answer.method, "echo");
      assert.ok(answer.rtt >= 0 && answer.rtt < 5000, `rtt ${answer.rtt}`);
      assert.ok(answer.time >= out[0].time);
    }
    const batched = onClient.filter((record) => record.direction === "out" && record.batch);
    assert.ok(batched.length >= 2, "the burst went out as a batch, traced member by member");
    assert.deepEqual(batched.map((record) => record.batch.size)[0], batched.length);
    const events = onClient.filter((record) => record.event).map(({ event, method }) => [event, method]);
    assert.deepEqual(events, [["timeout", "hang"], ["cancel", "hang"]]);
    assert.ok(onServer.some((record) => record.direction === "in" && record.message.method === "$/cancelRequest"));
    assert.ok(onServer.some((record) => record.event === "unhandled-notification" && record.method === "nobody.listens"));
    assert.ok(onServer.some((record) => record.direction === "in" && record.message.method === "$/ready"),
      "the handshake is traced too");
  } finally {
    client.destroy();
    server.destroy();
  }
});

test("trace: a throwing hook is reported as an uncaught error and changes nothing", async () => {
  const uncaught = [];
  const listener = (error) => uncaught.push(error);
  const listeners = process.listeners("uncaughtException");
  process.removeAllListeners("uncaughtException");
  process.on("uncaughtException", listener);
  const { server, client, close } = pair({ client: { trace: () => {
    throw new Error("hook bug");
  } } });
  server.method("echo", (params) => params);
  try {
    assert.deepEqual(await client.request("echo", [1]), [1]);
    await sleep(20);
    assert.ok(uncaught.length >= 2 && uncaught.every((error) => error.message === "hook bug"));
    assert.throws(() => new JSONRPCClient({ send() {}, onMessage() {} }, { trace: "yes" }), /trace must be a function/);
  } finally {
    close();
    process.removeListener("uncaughtException", listener);
    for (const previous of listeners) process.on("uncaughtException", previous);
  }
});
