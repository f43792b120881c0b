// The server of the hostile-client test, in a process of its own so that its
// memory is its own: a Hub on 127.0.0.1 with default limits. Prints its
// port; `memory` answers its heap and wasm memory after a full collection.
import { readFile } from "node:fs/promises";
import { WebSocketServer } from "ws";
import init from "../../../pkg-web/wiggum_rpc.js";
import { Hub } from "../../../pkg-web/hub.js";

const wasm = await init({ module_or_path: await readFile(new URL("../../../pkg-web/wiggum_rpc_bg.wasm", import.meta.url)) });

const wss = new WebSocketServer({ host: "127.0.0.1", port: 0 });
const hub = new Hub().attach(wss);
hub.method("add", ([a, b]) => a + b);
hub.method("echo", (params) => params);
hub.method("memory", () => {
  for (let i = 0; i < 3; i++) globalThis.gc();
  const { heapUsed, external, arrayBuffers, rss } = process.memoryUsage();
  return { heapUsed, external, arrayBuffers, rss, wasm: wasm.memory.buffer.byteLength };
});
wss.on("listening", () => console.log(JSON.stringify({ port: wss.address().port })));
