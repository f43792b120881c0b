// Node, CommonJS: code written for `wiggum-rpc/web` (init, then use) runs in Node too.
const web = require("wiggum-rpc/web");

(async () => {
  await web.default();
  const { port1, port2 } = new MessageChannel();
  const caller = new web.Peer(web.portTransport(port1));
  const server = new web.Peer(web.portTransport(port2));
  server.method("add", ([a, b]) => a + b);
  const sum = await caller.request("add", [2, 3]);
  const missing = await caller.request("nope").catch((error) => error.code === web.ErrorCode.METHOD_NOT_FOUND);
  caller.destroy();
  server.destroy();
  console.log(JSON.stringify({ sum, missing }));
})();
