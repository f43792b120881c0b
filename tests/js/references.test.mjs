// Functions and objects by reference between two Peers on a MessageChannel
// (`wiggum-rpc/references/remote`'s `reference()`), in the package's Node
// build of its references flavour (pkg/references/node/): callbacks called
// back and released, live objects, a stub passed back arriving as the
// original, a stranger refused before anything is sent, destroy, released
// stubs, and the backstop for a stub collected unreleased.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { JSONRPCClient, JSONRPCServer, JSONRPCServerAndClient } from "json-rpc-2.0";

// A call that never settles fails its test, not the suite: each test ends by this bound.
const TEST_TIMEOUT = 30_000;

const require = createRequire(import.meta.url);
const build = "../../pkg/references/node";
const lib = require(`${build}/wiggum_rpc.cjs`);
const { reference, referencesHeld, withOptions } = require(`${build}/remote.cjs`);
require(`${build}/trace.cjs`);

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc");

const UNKNOWN_REFERENCE = -32091;
const CONNECTION_CLOSED = -32095;
const INVALID_PARAMS = -32602;
const METHOD_NOT_FOUND = -32601;
const REQUEST_TIMEOUT = -32099;
const REQUEST_CANCELLED = -32800;

const tick = (ms = 20) => new Promise((resolve) => setTimeout(resolve, ms));

/** Resolves once `condition()` holds, failing after 5 s. */
async function until(condition, what) {
  for (let waited = 0; !condition(); waited += 10) {
    if (waited > 5000) assert.fail(`timed out waiting for ${what}`);
    await tick(10);
  }
}

/** Two Peers over a MessageChannel; `use` runs with both, then both go. */
async function pair(use, options = {}, holderOptions = {}) {
  const { port1, port2 } = new MessageChannel();
  const owner = new lib.Peer(lib.portTransport(port1), { timeout: 3000, ...options });
  const holder = new lib.Peer(lib.portTransport(port2), { timeout: 3000, ...holderOptions });
  try {
    await use(owner, holder);
  } finally {
    owner.destroy();
    holder.destroy();
    port1.close();
  }
}

/** `peer` keeps each stub it is sent by "keep" (the holder never releases it unless a test does): the stubs, in order. */
function keeping(peer) {
  const kept = [];
  peer.method("keep", ([stub]) => kept.push(stub) > 0);
  return kept;
}

test("a callback passed to a Peer is called back 1,000 times, then released: both tables empty", { timeout: TEST_TIMEOUT }, async () => {
  await pair(async (owner, holder) => {
    holder.method("watch", async ([from, times, onChange]) => {
      let sum = 0;
      for (let i = 0; i < times; i++) sum += await onChange(from + i);
      assert.equal(onChange.release(), true);
      assert.equal(onChange.release(), false, "a second release does nothing");
      return sum;
    });
    const seen = [];
    const params = [0, 1200, reference((n) => {
      seen.push(n);
      return n * 2;
    })];
    const sum = await owner.request("watch", params);
    assert.equal(seen.length, 1200);
    assert.equal(sum, 1199 * 1200);
    assert.ok(params[2] instanceof Object && !("$ref" in params[2]), "the caller's params are not changed");
    await tick();
    assert.deepEqual(referencesHeld(owner), [0, 0], "the owner's table is empty once released");
    assert.deepEqual(referencesHeld(holder), [0, 0]);
  });
});

test("a live object returned by reference: its methods, its state, no private members", { timeout: TEST_TIMEOUT }, async () => {
  await pair(async (owner, holder) => {
    class Counter {
      count = 0;
      add(n) {
        this.count += n;
        return this.count;
      }
      async later(n) {
        await tick(1);
        return this.add(n);
      }
      _secret() {
        return "hidden";
      }
    }
    const counter = new Counter();
    owner.method("counter", () => reference(counter));
    const stub = await holder.request("counter");
    assert.equal(typeof stub, "function");
    assert.equal(await stub.add(2), 2);
    assert.equal(await stub.later(3), 5);
    assert.equal(counter.count, 5, "the original object changed");
    await assert.rejects(stub._secret(), (error) => error.code === METHOD_NOT_FOUND);
    await assert.rejects(stub.missing(), (error) => error.code === METHOD_NOT_FOUND);
    await assert.rejects(stub(), (error) => error.code === METHOD_NOT_FOUND, "an object is not a function");
    assert.deepEqual(referencesHeld(owner), [1, 0]);
    assert.deepEqual(referencesHeld(holder), [0, 1]);
    stub[Symbol.dispose]?.() ?? stub.release();
    await tick();
    assert.deepEqual(referencesHeld(owner), [0, 0]);
  });
});

test("a stub passed back to its owner arrives as the original", { timeout: TEST_TIMEOUT }, async () => {
  await pair(async (owner, holder) => {
    const target = { hello: () => "hi" };
    let arrived;
    owner.method("same", ([one]) => {
      arrived = one;
      return one === target;
    });
    holder.method("keep", async ([stub]) => {
      const same = await holder.request("same", [stub]);
      stub.release();
      return same;
    });
    assert.equal(await owner.request("keep", [reference(target)]), true);
    assert.equal(arrived, target);
    await tick();
    assert.deepEqual(referencesHeld(owner), [0, 0]);
  });
});

test("a stranger that answers hello without references: the call is refused -32602, nothing is sent", { timeout: TEST_TIMEOUT }, async () => {
  const { port1, port2 } = new MessageChannel();
  const received = [];
  port2.onmessage = ({ data }) => {
    received.push(data);
    // An endpoint that speaks JSON-RPC and answers hello, but offers no references.
    if (data?.method === "$/ready" && data.params?.ack === false) {
      port2.postMessage({ jsonrpc: "2.0", method: "$/ready", params: { ack: true, batches: true } });
    }
  };
  const peer = new lib.Peer(lib.portTransport(port1), { timeout: 2000 });
  try {
    await assert.rejects(peer.request("watch", [reference(() => 1)]), (error) => error.code === INVALID_PARAMS);
    await tick();
    assert.deepEqual(received.filter((one) => one.method !== "$/ready"), [], "only hellos went out");
    assert.ok(received.every((one) => one.refs === undefined));
    assert.deepEqual(referencesHeld(peer), [0, 0], "what the call introduced was given back");
    assert.throws(() => peer.notify("watch", [reference(() => 1)]), (error) => error.code === INVALID_PARAMS);
  } finally {
    peer.destroy();
    port1.close();
    port2.close();
  }
});

test("destroy: every stub the endpoint holds fails CONNECTION_CLOSED", { timeout: TEST_TIMEOUT }, async () => {
  const { port1, port2 } = new MessageChannel();
  const owner = new lib.Peer(lib.portTransport(port1), { timeout: 3000 });
  const holder = new lib.Peer(lib.portTransport(port2), { timeout: 3000 });
  const held = keeping(holder);
  await owner.request("keep", [reference({ ping: () => "pong" })]);
  const [kept] = held;
  assert.equal(await kept.ping(), "pong");
  holder.destroy();
  await assert.rejects(kept.ping(), (error) => error.code === CONNECTION_CLOSED);
  await assert.rejects(kept(), (error) => error.code === CONNECTION_CLOSED);
  assert.equal(kept.release(), true, "released after the end: nothing is sent");
  owner.destroy();
  port1.close();
});

test("a released stub fails UNKNOWN_REFERENCE; a call of a released id is answered so by its owner", { timeout: TEST_TIMEOUT }, async () => {
  await pair(async (owner, holder) => {
    const held = keeping(holder);
    await owner.request("keep", [reference(() => "called")]);
    const [kept] = held;
    assert.equal(await kept(), "called");
    kept.release();
    await assert.rejects(kept(), (error) => error.code === UNKNOWN_REFERENCE);
    await assert.rejects(holder.request("anything", [kept]), (error) => error.code === UNKNOWN_REFERENCE, "nor passed back");
    await tick();
    // The id is released on its owner's side too: a call of it by name is refused there.
    await assert.rejects(holder.request("$/ref/1", []), (error) => error.code === UNKNOWN_REFERENCE);
  });
});

test("a stub of another connection cannot be passed on without reference()", { timeout: TEST_TIMEOUT }, async () => {
  await pair(async (owner, holder) => {
    const held = keeping(holder);
    await owner.request("keep", [reference(() => "first")]);
    const [kept] = held;
    await pair(async (other) => {
      await assert.rejects(other.request("keep", [kept]), TypeError);
    });
    kept.release();
  });
});

test("the wire: refs beside params and result, $/ref/<id> calls, $/release; the caller's params unchanged", { timeout: TEST_TIMEOUT }, async () => {
  const out = [];
  await pair(async (owner, holder) => {
    holder.method("call", async ([callback]) => {
      const answer = await callback("x");
      callback.release();
      return answer;
    });
    const params = { nested: [1, reference((text) => `${text}!`)] };
    assert.equal(await owner.request("call", [params.nested[1]]), "x!");
    await tick();
    assert.ok(params.nested[1].target, "still the marker");
  }, { trace: ({ direction, message }) => direction === "out" && out.push(message) });
  const call = out.find((one) => one.method === "call");
  assert.deepEqual([call.params, call.refs], [[{ $ref: 1 }], [[1, [0]]]]);
  const release = out.find((one) => one.method === "$/release");
  assert.deepEqual(release, undefined, "the owner sends no release of its own");
  const answer = out.find((one) => one.id !== undefined && one.result === "x!");
  assert.ok(answer, "the callback's answer went out");
});

test("calls made in one turn go as a batch, each member with its own refs, read whole", { timeout: TEST_TIMEOUT }, async () => {
  const out = [];
  await pair(async (owner, holder) => {
    holder.method("hello", () => "hi");
    await owner.request("hello");
    holder.method("call", async ([callback]) => {
      const answer = await callback();
      callback.release();
      return answer;
    });
    const answers = await Promise.all([1, 2, 3].map((n) => owner.request("call", [reference(() => n)])));
    assert.deepEqual(answers, [1, 2, 3]);
    await tick();
    assert.deepEqual(referencesHeld(owner), [0, 0]);
  }, { trace: ({ direction, message, batch }) => direction === "out" && batch !== undefined && out.push(message) });
  // The first call goes at once; those made after it in the same turn go together.
  const members = out.filter((one) => one.method === "call");
  assert.ok(members.length >= 2, "calls went as a batch");
  for (const one of members) assert.deepEqual(one.refs, [[one.params[0].$ref, [0]]]);
});

test("a notification carries references; each arrival is its own stub", { timeout: TEST_TIMEOUT }, async () => {
  await pair(async (owner, holder) => {
    const called = [];
    const done = new Promise((resolve) => {
      holder.onNotify("tell", async ([a, b]) => {
        called.push(await a(1), await b(2));
        assert.notEqual(a, b);
        a.release();
        b.release();
        resolve();
      });
    });
    const target = (n) => n * 10;
    // Toward a peer not heard yet a notification is refused at once (it has no promise to wait with).
    assert.throws(() => owner.notify("tell", [reference(target)]), (error) => error.code === INVALID_PARAMS);
    assert.deepEqual(referencesHeld(owner), [0, 0], "what it introduced was given back");
    holder.method("hello", () => "hi");
    await owner.request("hello");
    owner.notify("tell", [reference(target), reference(target)]);
    await done;
    assert.deepEqual(called, [10, 20]);
    await tick();
    assert.deepEqual(referencesHeld(owner), [0, 0]);
  });
});

test("what the language and the platform ask of any object is never a call: JSON.stringify, String, util.inspect, iteration, constructor, await; destroy leaves nothing pending", { timeout: TEST_TIMEOUT }, async () => {
  const { inspect } = await import("node:util");
  const { port1, port2 } = new MessageChannel();
  const owner = new lib.Peer(lib.portTransport(port1), { timeout: 3000 });
  // Every message the holder sends, as it goes.
  const sent = [];
  const post = port2.postMessage.bind(port2);
  port2.postMessage = (message, transfer) => {
    sent.push(message);
    return post(message, transfer);
  };
  const holder = new lib.Peer(lib.portTransport(port2), { timeout: 3000 });
  const unhandled = [];
  const onUnhandled = (reason) => unhandled.push(reason);
  process.on("unhandledRejection", onUnhandled);
  try {
    const kept = keeping(holder);
    await owner.request("keep", [reference({ hello: () => "hi" })]);
    const [stub] = kept;
    const before = sent.length;
    assert.equal(JSON.stringify({ stub }), '{"stub":"[wiggum-rpc stub 1]"}');
    assert.equal(String(stub), "[wiggum-rpc stub 1]");
    assert.equal(`${stub}`, "[wiggum-rpc stub 1]");
    assert.match(inspect(stub), /wiggum-rpc stub 1/);
    assert.equal(Object.prototype.toString.call(stub), "[object wiggum-rpc stub]");
    assert.equal(stub.constructor, undefined);
    assert.throws(() => [...stub], TypeError, "not iterable");
    assert.equal(stub[Symbol.asyncIterator], undefined);
    assert.equal(await stub, stub, "not thenable");
    await tick();
    assert.deepEqual(sent.slice(before), [], "nothing was sent for any of them");
    assert.equal(await stub.hello(), "hi", "its own members are still calls");
  } finally {
    owner.destroy();
    holder.destroy();
    port1.close();
  }
  await tick(50);
  process.off("unhandledRejection", onUnhandled);
  assert.deepEqual(unhandled, []);
});

test("a reference() handed to a Peer of the plain flavour (wiggum-rpc) is not sent as data: the call fails saying to import every entry from one flavour", { timeout: TEST_TIMEOUT }, async () => {
  const plain = require("../../pkg/node/wiggum_rpc.cjs");
  const { port1, port2 } = new MessageChannel();
  const caller = new plain.Peer(plain.portTransport(port1), { timeout: 3000 });
  const callee = new plain.Peer(plain.portTransport(port2), { timeout: 3000 });
  const received = [];
  callee.method("take", (params) => received.push(params) > 0);
  try {
    for (const target of [{ hello: () => "hi" }, () => 1]) {
      await assert.rejects(caller.request("take", [reference(target)]), (error) =>
        error.code === -32096 && /import every entry from one flavour/.test(error.message) && error.data instanceof TypeError);
    }
    assert.deepEqual(received, [], "nothing arrived as data");
    assert.equal(await caller.request("take", [1]), true, "the Peer goes on");
  } finally {
    caller.destroy();
    callee.destroy();
  }
});

test("limits.maxReferences bounds what the other side may hold: past it -32090, nothing sent", { timeout: TEST_TIMEOUT }, async () => {
  await pair(async (owner, holder) => {
    const kept = keeping(holder);
    await owner.request("keep", [reference(() => 1)]);
    await owner.request("keep", [reference(() => 2)]);
    await assert.rejects(owner.request("keep", [reference(() => 3)]), (error) => error.code === -32090);
    assert.equal(kept.length, 2);
    kept[0].release();
    await tick();
    await owner.request("keep", [reference(() => 4)]);
    assert.equal(kept.length, 3);
  }, { limits: { maxReferences: 2 } });
});

test("a stub collected unreleased is released by the backstop, and the owner's table empties", { timeout: TEST_TIMEOUT }, async () => {
  const leaked = [];
  await pair(async (owner, holder) => {
    holder.method("drop", async ([stub]) => stub());
    for (let i = 0; i < 20; i++) assert.equal(await owner.request("drop", [reference(() => i)]), i);
    assert.equal(referencesHeld(owner)[0] > 0, true);
    for (let i = 0; i < 10 && referencesHeld(owner)[0] !== 0; i++) {
      gc();
      await tick(30);
    }
    assert.deepEqual(referencesHeld(owner), [0, 0]);
    assert.deepEqual(referencesHeld(holder), [0, 0]);
  }, {}, { trace: (record) => record.event === "reference-leaked" && leaked.push(record) });
  assert.ok(leaked.length > 0, "the holder's observer heard of each leak");
  assert.equal(leaked[0].method.startsWith("$/ref/"), true);
});

test("toward json-rpc-2.0, which never says hello: a call with a reference is held, fails at its timeout saying it was never sent, and nothing but the hello goes out", { timeout: TEST_TIMEOUT }, async () => {
  const { port1, port2 } = new MessageChannel();
  const received = [];
  let ran = 0;
  const stranger = new JSONRPCServerAndClient(new JSONRPCServer(), new JSONRPCClient((payload) => port2.postMessage(payload)));
  stranger.addMethod("watch", () => ++ran);
  port2.onmessage = ({ data }) => {
    received.push(data);
    stranger.receiveAndSend(data).catch(() => {});
  };
  const peer = new lib.Peer(lib.portTransport(port1), { timeout: 300 });
  try {
    const held = peer.request("watch", [reference(() => 1)]);
    await tick();
    // Nothing was sent: the other side holds nothing yet.
    assert.deepEqual(referencesHeld(peer), [0, 0], "held while it waits: nothing was sent");
    // A port has no frame to load: the message says what happened.
    await assert.rejects(held, (error) => error.code === REQUEST_TIMEOUT && /before it could be sent: no hello from the other side/.test(error.message));
    await tick();
    assert.deepEqual(received.map((one) => one.method), ["$/ready"], "only the hello went out");
    assert.equal(ran, 0);
    assert.deepEqual(referencesHeld(peer), [0, 0], "what the call introduced was given back");
    // Plain calls still go to it.
    assert.equal(await peer.request("watch", [1]), 1);
  } finally {
    peer.destroy();
    port1.close();
    port2.close();
  }
});

test("withOptions: a target that never returns ends at the call's own timeout, or when its signal aborts; the stub stays usable", { timeout: TEST_TIMEOUT }, async () => {
  await pair(async (owner, holder) => {
    const held = keeping(holder);
    let started = 0;
    await owner.request("keep", [reference({
      hang: () => {
        started += 1;
        return new Promise(() => {});
      },
      ping: () => "pong",
      fail: () => {
        throw new Error("refused by the target");
      },
    })]);
    const [stub] = held;
    await assert.rejects(withOptions(stub, { timeout: 100 }).hang(), (error) => error.code === REQUEST_TIMEOUT);
    const aborting = new AbortController();
    const aborted = withOptions(stub, { signal: aborting.signal }).hang();
    setTimeout(() => aborting.abort(), 50);
    await assert.rejects(aborted, (error) => error.code === REQUEST_CANCELLED);
    assert.equal(started, 2);
    await assert.rejects(stub.fail(), (error) => error.message === "refused by the target");
    assert.equal(await stub.ping(), "pong", "the stub works after a timeout, a cancel and a throw");
    assert.throws(() => withOptions(() => 1, {}), TypeError);
    assert.equal(stub.release(), true);
    await tick();
    assert.deepEqual(referencesHeld(owner), [0, 0]);
  });
});

test("100,000 references made and released: both tables empty, the JS heap back where it started", { timeout: TEST_TIMEOUT }, async () => {
  await pair(async (owner, holder) => {
    holder.method("take", async (stubs) => {
      for (const stub of stubs) stub.release();
      return stubs.length;
    });
    const round = async () => {
      const params = Array.from({ length: 100 }, (_, i) => reference(() => i));
      return owner.request("take", params);
    };
    // Warm up (the module's memory and the tables' first growth), then measure.
    for (let i = 0; i < 50; i++) await round();
    await tick();
    gc();
    const before = process.memoryUsage().heapUsed;
    let taken = 0;
    for (let i = 0; i < 1000; i++) taken += await round();
    for (let i = 0; i < 10 && (referencesHeld(owner)[0] !== 0 || referencesHeld(holder)[1] !== 0); i++) await tick();
    gc();
    await tick();
    gc();
    const after = process.memoryUsage().heapUsed;
    console.log(`100,000 references: heap ${(before / 1e6).toFixed(1)} MB before, ${(after / 1e6).toFixed(1)} MB after; tables ${JSON.stringify([referencesHeld(owner), referencesHeld(holder)])}`);
    assert.equal(taken, 100_000);
    assert.deepEqual(referencesHeld(owner), [0, 0]);
    assert.deepEqual(referencesHeld(holder), [0, 0]);
    assert.ok(after - before < 4e6, `the heap grew by ${((after - before) / 1e6).toFixed(1)} MB`);
  }, { timeout: 20000 }, { timeout: 20000 });
});

/** A hostile endpoint on a raw port: it says hello with references, records what it gets, and never releases. */
function hostile(port, answer = () => true) {
  const received = [];
  port.onmessage = ({ data }) => {
    for (const one of Array.isArray(data) ? data : [data]) {
      received.push(one);
      if (one?.method === "$/ready" && one.params?.ack === false) {
        port.postMessage({ jsonrpc: "2.0", method: "$/ready", params: { ack: true, batches: true, references: true } });
      } else if (one?.id !== undefined && typeof one.method === "string") {
        port.postMessage({ jsonrpc: "2.0", id: one.id, result: answer(one) });
      }
    }
  };
  return received;
}

test("a hostile peer that never releases: at the default bound (10,000 held) the next reference is refused -32090 before it is sent; plain calls go on", { timeout: TEST_TIMEOUT }, async () => {
  const { port1, port2 } = new MessageChannel();
  const received = hostile(port2);
  const owner = new lib.Peer(lib.portTransport(port1), { timeout: 5000 });
  try {
    for (let i = 0; i < 100; i++) {
      await owner.request("keep", Array.from({ length: 100 }, (_, j) => reference(() => i * 100 + j)));
    }
    assert.deepEqual(referencesHeld(owner), [10_000, 0]);
    const sent = received.length;
    await assert.rejects(owner.request("keep", [reference(() => "one too many")]), (error) => error.code === -32090 && /references/i.test(error.message));
    assert.throws(() => owner.notify("keep", [reference(() => "one too many")]), (error) => error.code === -32090);
    await tick();
    assert.equal(received.length, sent, "nothing was sent for the refused call or notification");
    assert.deepEqual(referencesHeld(owner), [10_000, 0], "no id was used");
    assert.equal(await owner.request("plain", [1]), true, "plain calls still go");
    // What it holds it may call: the 10,000th target still answers.
    port2.postMessage({ jsonrpc: "2.0", id: "c1", method: "$/ref/10000", params: [] });
    await tick(50);
    const answer = received.find((one) => one.id === "c1");
    assert.equal(answer?.result, 9_999);
  } finally {
    owner.destroy();
    port1.close();
    port2.close();
  }
  assert.deepEqual(referencesHeld(owner), [0, 0], "destroy frees every target");
});

test("a hostile peer's bad references: too many at once, malformed refs, an id never sent, releases twice or of nothing; each answered as the spec and the core say, the Peer unharmed", { timeout: TEST_TIMEOUT }, async () => {
  const { port1, port2 } = new MessageChannel();
  const received = hostile(port2);
  const peer = new lib.Peer(lib.portTransport(port1), { timeout: 5000, limits: { maxReferences: 100 } });
  let ran = 0;
  peer.method("take", () => ++ran);
  try {
    assert.equal(await peer.request("hello-first"), true);
    const send = (message) => port2.postMessage({ jsonrpc: "2.0", ...message });
    const refs = (n) => Array.from({ length: n }, (_, i) => [i + 1, [i]]);
    send({ id: 1, method: "take", params: Array.from({ length: 101 }, (_, i) => ({ $ref: i + 1 })), refs: refs(101) });
    send({ id: 2, method: "take", params: [1], refs: "not a list" });
    send({ id: 3, method: "take", params: [1], refs: [[1, "not a path"]] });
    send({ id: 4, method: "$/ref/77", params: [] });
    send({ id: 5, method: "$/ref/77.method", params: [] });
    send({ method: "$/release", params: [[5, 1], [5, 1], [123456, 9]] });
    send({ method: "$/release", params: "garbage" });
    send({ id: 6, method: "take", params: [1] });
    await tick(100);
    const answers = Object.fromEntries(received.filter((one) => one.id !== undefined && one.method === undefined).map((one) => [one.id, one.error?.code ?? one.result]));
    console.log(`answers: ${JSON.stringify(answers)}`);
    assert.equal(answers[1], -32090, "more stubs than the bound");
    assert.equal(answers[2], -32600, "refs that are not a list");
    assert.equal(answers[3], -32600, "a path that is not a path");
    assert.equal(answers[4], -32091, "a reference never sent");
    assert.equal(answers[5], -32091, "a member of a reference never sent");
    assert.equal(answers[6], 1, "the Peer still serves");
    assert.equal(answers.null, -32600, "params that are neither array nor object: an Invalid Request, answered with id null as the spec's examples are");
    assert.equal(ran, 1, "only the good call ran");
    assert.deepEqual(referencesHeld(peer), [0, 0], "nothing kept of the refused messages");
  } finally {
    peer.destroy();
    port1.close();
    port2.close();
  }
});

test("a stranger's `refs` member is data: from one that never says hello, and from one whose hello offers no references", { timeout: TEST_TIMEOUT }, async () => {
  for (const hello of [false, true]) {
    const { port1, port2 } = new MessageChannel();
    const received = [];
    port2.onmessage = ({ data }) => {
      received.push(data);
      if (hello && data?.method === "$/ready" && data.params?.ack === false) {
        port2.postMessage({ jsonrpc: "2.0", method: "$/ready", params: { ack: true } });
      }
    };
    const peer = new lib.Peer(lib.portTransport(port1), { timeout: 2000 });
    const took = [];
    peer.method("take", (params) => {
      took.push(params);
      return "taken";
    });
    try {
      if (hello) await until(() => received.some((one) => one.method === "$/ready"), "the hello");
      port2.postMessage({ jsonrpc: "2.0", id: 1, method: "take", params: [{ $ref: 1 }], refs: [[1, [0]]] });
      await until(() => received.some((one) => one.id === 1), "the answer");
      assert.deepEqual(took, [[{ $ref: 1 }]], `the params as sent (hello: ${hello})`);
      const answer = received.find((one) => one.id === 1);
      assert.equal(answer.result, "taken");
      assert.equal(answer.refs, undefined);
      assert.deepEqual(referencesHeld(peer), [0, 0], "no stub was made");
    } finally {
      peer.destroy();
      port1.close();
      port2.close();
    }
  }
});
