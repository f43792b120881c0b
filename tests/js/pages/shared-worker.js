// A module SharedWorker whose hub serves every page that connects
// (tests/js/broadcast.test.mjs). `listen` comes before any await: the first
// page connects as the worker starts.
import init from "/pkg/wiggum_rpc.js";
import { Hub } from "/pkg/hub.js";

const hub = new Hub().listen(self, init());
hub.method("whoami", (params, { client }) => client);
hub.method("clients", () => hub.clients);
hub.on("disconnection", (id) => hub.notifyAll("left", { id }));
