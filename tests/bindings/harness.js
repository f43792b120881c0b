// The package's glue as src/bindings/tests.rs sees it: what the module imports
// (abi.js, as every build links it), the root entry's classes, and the few
// helpers the tests drive them with. scripts/bindings-test-glue.mjs bundles
// it into target/bindings-test/glue.js, the snippet the test build imports.

import { liveHandles, start } from "../../js/module/abi.js";
import { JSONRPCClient, JSONRPCServer, Peer, portTransport } from "../../js/module/package.js";

export * from "../../js/module/abi.js";
export { liveHandles };

/**
 * Starts the glue on the test module's exports: `wasm_bindgen::exports()`,
 * whose names are the Rust functions' (the package's build shortens them;
 * the glue names each with a `$` before it).
 */
export function startPackage(exports) {
  start(new Proxy(exports, { get: (target, name) => target[typeof name === "string" && name.startsWith("$") ? name.slice(1) : name] }));
}

/**
 * A client and a server on a MessageChannel, and what each side posted
 * (`posted.client`, `posted.server`: the messages as they went, in order).
 */
export function pair() {
  const { port1, port2 } = new MessageChannel();
  const posted = { client: [], server: [] };
  const recording = (port, into) => {
    const transport = portTransport(port);
    const send = transport.send.bind(transport);
    transport.send = (message, transfer) => {
      into.push(message);
      send(message, transfer);
    };
    return transport;
  };
  const server = new JSONRPCServer(recording(port1, posted.server));
  const client = new JSONRPCClient(recording(port2, posted.client));
  return { client, server, posted };
}

/**
 * A stranger's port toward a server: posts `message` (any value) to the
 * server on the other end and resolves with what it answers within `wait`
 * ms (undefined for nothing).
 */
export function stranger(wait) {
  const { port1, port2 } = new MessageChannel();
  const server = new Peer(portTransport(port1));
  const heard = [];
  port2.onmessage = ({ data }) => heard.push(data);
  const ask = (message) => {
    heard.length = 0;
    port2.postMessage(message);
    return new Promise((resolve) => setTimeout(() => resolve(heard.length === 0 ? undefined : heard[heard.length - 1]), wait));
  };
  return { server, ask, close: () => (server.destroy(), port2.close()) };
}

/** Resolves after the tasks queued so far (a port's messages among them) have run. */
export const settle = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
