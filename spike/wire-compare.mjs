// SPIKE: what each side posts, the spike's driver against today's package,
// for the same script (hello, a call, three calls in one turn, an unknown
// method, a throwing handler, a notification). Prints both and whether they match.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";

const raw = await import(new URL("./driver.js", import.meta.url).pathname);
await raw.init(readFileSync(new URL("./build/raw.wasm", import.meta.url)));
const pkg = createRequire(import.meta.url)("../pkg/node/wiggum_rpc.cjs");

let log;
const post = MessagePort.prototype.postMessage;
MessagePort.prototype.postMessage = function (data, ...rest) {
  log?.push(`${this.side}: ${JSON.stringify(data)}`);
  return post.call(this, data, ...rest);
};

async function script(make) {
  log = [];
  const { port1, port2 } = new MessageChannel();
  port1.side = "a";
  port2.side = "b";
  const [a, b] = make(port1, port2);
  b.method("add", ([x, y]) => x + y);
  b.method("boom", () => {
    throw new Error("no");
  });
  await a.request("add", [1, 2]);
  await Promise.all([a.request("add", [1, 1]), a.request("add", [2, 2]), a.request("add", [3, 3])]);
  await a.request("nope").catch(() => {});
  await a.request("boom", []).catch(() => {});
  a.notify("note", { k: 1 });
  await new Promise((r) => setTimeout(r, 20));
  a.destroy();
  b.destroy();
  return log;
}

const spike = await script((p1, p2) => [new raw.Peer(p1), new raw.Peer(p2)]);
const today = await script((p1, p2) => [new pkg.Peer(pkg.portTransport(p1)), new pkg.Peer(pkg.portTransport(p2))]);
// Today's hello names a Web Lock (presence), a random name; the spike's driver holds none.
const unnamed = (line) => line.replace(/,"presence":"[^"]*"/, "");
console.log("spike:\n  " + spike.join("\n  "));
console.log("today:\n  " + today.join("\n  "));
const same = spike.length === today.length && spike.every((line, i) => line === unnamed(today[i]));
console.log(same ? "same messages, in the same order (but today's presence name)" : "DIFFERENT");
process.exit(same ? 0 : 1);
