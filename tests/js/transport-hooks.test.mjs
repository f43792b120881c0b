// The hooks a transport of its own may offer an endpoint, with the Node
// build and a Transport subclass: `idle()`, heard when every call of the
// other side's has been answered (a service worker's link keeps the worker
// alive until then), and `settled(id)`, by which a request/reply
// transport learns the ids of the calls each message carries and reports
// those it got no response to.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const { Peer, Transport, ErrorCode } = require("../../pkg/node/wiggum_rpc.cjs");

/** A transport whose other side is the test: it records what is sent and when idle() is heard. */
class Recorded extends Transport {
  sent = [];
  log = [];
  send(message, transfer, calls) {
    this.sent.push({ message, calls });
    this.log.push(message.result !== undefined ? `answer ${message.id}` : "send");
  }
  idle() {
    this.log.push("idle");
  }
  receive(message) {
    this.deliver(message);
  }
  release() {}
}

test("idle() is heard once every call being served is answered, not before", async () => {
  const transport = new Recorded();
  const peer = new Peer(transport);
  let finish;
  peer.method("slow", () => new Promise((resolve) => (finish = resolve)));
  peer.method("quick", () => "now");
  assert.deepEqual(transport.log, ["idle"], "nothing to serve at first");
  transport.log.length = 0;
  transport.receive({ jsonrpc: "2.0", method: "slow", id: 1 });
  transport.receive({ jsonrpc: "2.0", method: "quick", id: 2 });
  await new Promise((resolve) => setTimeout(resolve, 20));
  assert.deepEqual(transport.log, ["answer 2"], "the slow call is still being served: not idle");
  finish("later");
  await new Promise((resolve) => setTimeout(resolve, 20));
  assert.deepEqual(transport.log, ["answer 2", "answer 1", "idle"]);
  transport.receive({ jsonrpc: "2.0", method: "unknown.notification" });
  assert.equal(transport.log.at(-1), "idle", "a notification leaves nothing to answer");
  peer.destroy();
});

class Undelivering extends Recorded {
  text = true;
  ended = [];
  settled(id) {
    this.ended.push(id);
  }
  fail(detail) {
    this.emit("undelivered", detail);
  }
}

test("settled(id): send() gets the calls' ids, the endpoint answers what the transport reports, settled() follows", async () => {
  const transport = new Undelivering();
  const peer = new Peer(transport, { timeout: 2000 });
  const first = peer.request("a", []).catch((error) => error);
  const second = peer.request("b", { x: 1 }).catch((error) => error);
  peer.notify("note", []);
  await new Promise((resolve) => setTimeout(resolve, 10));
  const ids = transport.sent.map(({ calls }) => calls);
  assert.deepEqual(ids.slice(0, 2).map((calls) => calls.length), [1, 1], "one call id with each request");
  assert.deepEqual(ids[2], [], "a notification carries none");
  const [[a], [b]] = ids;
  transport.fail({ calls: [a], reason: "not-json", message: "Parse error", data: { body: "<html>" } });
  transport.fail({ calls: [b, 999], reason: "failed", message: "HTTP 503 Service Unavailable", data: { status: 503 } });
  const [one, two] = await Promise.all([first, second]);
  assert.deepEqual([one.code, one.message, one.data], [ErrorCode.PARSE_ERROR, "Parse error", { body: "<html>" }]);
  assert.deepEqual([two.code, two.message, two.data], [ErrorCode.HTTP_ERROR, "HTTP 503 Service Unavailable", { status: 503 }]);
  assert.deepEqual(transport.ended, [a, b], "each call's end is heard");
  peer.destroy();
});
