// The root entry alone, then each capability entry imported in turn: what
// the root refuses or leaves out until the entry that serves it is imported
// (`wiggum-rpc/trace`, `/contracts`, `/introspection`), and that importing
// it is all it takes. One process, the Node build: the
// entries fill the root's slots for good once required, so the order of
// the tests is the story.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { readFileSync, readdirSync } from "node:fs";

const require = createRequire(import.meta.url);
const lib = require("../../pkg/node/wiggum_rpc.cjs");

test("the protocol module names no entry that plugs into it: each fills a generic slot", () => {
  const named = [];
  for (const dir of ["js/module", "src/bindings"]) {
    const at = new URL(`../../${dir}/`, import.meta.url);
    for (const file of readdirSync(at)) {
      readFileSync(new URL(file, at), "utf8").split("\n").forEach((line, i) => {
        if (/trace|contract|introspect/i.test(line)) named.push(`${dir}/${file}:${i + 1}: ${line.trim()}`);
      });
    }
  }
  assert.deepEqual(named, []);
});

/** A server and a client over a MessageChannel; `use` runs with both, then both go. */
async function pair(serverOptions, use, clientOptions = {}) {
  const { port1, port2 } = new MessageChannel();
  const server = new lib.Peer(lib.portTransport(port1), serverOptions);
  const client = new lib.Peer(lib.portTransport(port2), { timeout: 3000, ...clientOptions });
  try {
    await use(server, client);
  } finally {
    client.destroy();
    server.destroy();
  }
}

/** A hand-written Standard Schema: `[number, number]`. */
const twoNumbers = {
  "~standard": {
    version: 1,
    vendor: "test",
    validate: (value) =>
      Array.isArray(value) && value.length === 2 && value.every((n) => typeof n === "number")
        ? { value }
        : { issues: [{ message: "two numbers", path: [] }] },
  },
};

test("the root's classes: each side's methods only; destroy(), free() and after", async () => {
  const { port1, port2 } = new MessageChannel();
  const server = new lib.JSONRPCServer(lib.portTransport(port1));
  const client = new lib.JSONRPCClient(lib.portTransport(port2), { timeout: 3000 });
  assert.equal(lib.Peer.name, "Peer");
  assert.equal(typeof client.request, "function");
  assert.equal(client.method, undefined, "a client serves nothing");
  assert.equal(server.request, undefined, "a server calls nothing");
  const peer = new lib.Peer(lib.portTransport(new MessageChannel().port1));
  assert.ok(peer.method && peer.request, "a peer does both");
  peer.destroy();
  assert.throws(() => new lib.Peer({}), TypeError, "a transport needs send() and onMessage()");
  assert.throws(() => server.method("add", "not a function"), /handler must be a function/);
  server.method("add", ([a, b]) => a + b);
  server.onNotify("seen", () => {});
  assert.equal(await client.request("add", [2, 3]), 5);
  const waiting = client.request("add", [1, 1]);
  assert.equal(client.pending, 1);
  await waiting;
  assert.equal(client.pending, 0);
  assert.equal(client.session, undefined, "no session over a port");
  const freed = new lib.Peer(lib.portTransport(new MessageChannel().port1));
  freed.free();
  await assert.rejects(freed.request("add", [1, 2]), { code: lib.ErrorCode.DESTROYED }, "free() destroys");
  server.destroy();
  client.destroy();
  client.destroy();
  await assert.rejects(client.request("add", [1, 2]), { code: lib.ErrorCode.DESTROYED });
  assert.throws(() => client.notify("seen"), { code: lib.ErrorCode.DESTROYED });
  assert.equal(client.pending, 0);
});

test("the root alone: trace and schemas are refused by name; no introspection is served", async () => {
  const { port1 } = new MessageChannel();
  assert.throws(() => new lib.Peer(lib.portTransport(port1), { trace: () => {} }),
    (error) => error instanceof TypeError && /wiggum-rpc\/trace/.test(error.message));
  port1.close();
  await pair({}, async (server, client) => {
    assert.throws(() => server.method("add", ([a, b]) => a + b, { params: twoNumbers }),
      (error) => error instanceof TypeError && /wiggum-rpc\/contracts/.test(error.message));
    // A method's info without a schema needs no entry.
    server.method("add", ([a, b]) => a + b, { description: "adds" });
    assert.equal(await client.request("add", [2, 3]), 5);
    for (const method of ["listMethods", "describeMethods", "rpc.discover"]) {
      await assert.rejects(client.request(method), { code: lib.ErrorCode.METHOD_NOT_FOUND }, method);
    }
  });
});

test("wiggum-rpc/trace: the trace option works once imported", async () => {
  require("../../pkg/node/trace.cjs");
  const records = [];
  await pair({}, async (server, client) => {
    server.method("add", ([a, b]) => a + b);
    assert.equal(await client.request("add", [1, 2]), 3);
  }, { trace: (record) => records.push(record) });
  const answer = records.find((record) => record.direction === "in" && record.message.result === 3);
  assert.ok(answer, "the answer was traced");
  assert.equal(answer.method, "add");
  assert.ok(answer.rtt >= 0);
});

test("wiggum-rpc/contracts: a schema in a method's info checks its params once imported", async () => {
  require("../../pkg/node/contracts.cjs");
  await pair({}, async (server, client) => {
    server.method("add", ([a, b]) => a + b, { params: twoNumbers });
    assert.equal(await client.request("add", [2, 3]), 5);
    await assert.rejects(client.request("add", ["2", 3]), (error) => {
      assert.equal(error.code, lib.ErrorCode.INVALID_PARAMS);
      assert.deepEqual(error.data, [{ message: "two numbers" }]);
      return true;
    });
  });
});

test("wiggum-rpc/introspection: servers answer listMethods, describeMethods and rpc.discover once imported", async () => {
  require("../../pkg/node/introspection.cjs");
  await pair({ openrpc: { title: "entries" } }, async (server, client) => {
    server.method("add", ([a, b]) => a + b, { description: "adds", params: twoNumbers });
    const listed = await client.request("listMethods");
    assert.deepEqual(listed.map((method) => method.name), ["listMethods", "describeMethods", "rpc.discover", "add"]);
    const document = await client.request("rpc.discover");
    assert.equal(document.info.title, "entries");
    assert.ok(document.methods.some((method) => method.name === "add" && method.description === "adds"));
  });
  await pair({ introspection: false }, async (server, client) => {
    await assert.rejects(client.request("listMethods"), { code: lib.ErrorCode.METHOD_NOT_FOUND });
  });
});

test("the jrpcOo option needs no entry: params go as {args} (the core's dialect)", async () => {
  const { port1, port2 } = new MessageChannel();
  const seen = [];
  port1.on("message", (message) => seen.push(message));
  const peer = new lib.Peer(lib.portTransport(port2), { jrpcOo: true, timeout: 200 });
  try {
    await assert.rejects(peer.request("Repo.add", [1, 2]), { code: lib.ErrorCode.REQUEST_TIMEOUT });
    const call = seen.find((message) => message.method === "Repo.add");
    assert.deepEqual(call.params, { args: [1, 2] });
  } finally {
    peer.destroy();
    port1.close();
  }
});
