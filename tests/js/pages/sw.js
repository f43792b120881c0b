// A module service worker whose hub serves every client page
// (tests/js/broadcast.test.mjs). A service worker adds its listeners while
// its script first runs: `serveClients` comes before init() has finished.
import init from "/pkg/wiggum_rpc.js";
import { Hub } from "/pkg/hub.js";

const instance = crypto.randomUUID();
const hub = new Hub().serveClients(self, init());
hub.method("add", ([a, b]) => a + b);
hub.method("whoami", (params, { client }) => client);
hub.method("instance", () => instance);
hub.method("slow", ([ms]) => new Promise((resolve) => setTimeout(() => resolve("slow done"), ms)));

// Another library's protocol on the same channel: answered by it alone.
self.addEventListener("message", (event) => {
  if (event.data?.foreign !== undefined) event.source.postMessage({ foreign: "pong", seen: event.data.foreign });
});
self.addEventListener("install", () => self.skipWaiting());
