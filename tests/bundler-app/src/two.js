// The page's own bundle calls the second bundle's server over a
// MessageChannel: two wasm instances on one page, meeting only on the wire.
import { JSONRPCClient, portTransport } from "wiggum-rpc";

if (window.serveOn === undefined) await new Promise((ready) => window.addEventListener("second-ready", ready, { once: true }));
const { port1, port2 } = new MessageChannel();
window.serveOn(port2);
const client = new JSONRPCClient(portTransport(port1), { timeout: 5000 });
const [sum, who] = await Promise.all([client.request("add", [2, 3]), client.request("whoAmI")]);
window.result = { sum, who };
