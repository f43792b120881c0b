// The demo's service worker: its hub answers every page of the demo
// (serviceWorkerTransport on the page). Each instance has a short name and
// counts its calls, so the page shows when a new instance answers.
import init from "/pkg/wiggum_rpc.js";
import { Hub } from "/pkg/hub.js";

const instance = crypto.randomUUID().slice(0, 8);
let calls = 0;
const hub = new Hub().serveClients(self, init());
hub.method("hello", (params, { client }) => ({ instance, calls: ++calls, client }));

self.addEventListener("install", () => self.skipWaiting());
