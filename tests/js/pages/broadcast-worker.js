// A module worker that joins channel "bus" as "w" (tests/js/broadcast.test.mjs).
import init from "/pkg/wiggum_rpc.js";
import { broadcastHub } from "/pkg/hub.js";

await init();
const hub = broadcastHub("bus", { id: "w" });
hub.method("whoami", (params, { client }) => ({ me: "w", caller: client }));
hub.method("slow", () => new Promise(() => {}));
postMessage("joined");
