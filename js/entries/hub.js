// One server for many clients, the package's `wiggum-rpc/hub` entry: each
// connection (a WebSocket of Node's `ws` server, a MessagePort, any
// transport) gets a client id and a Peer of its own; the hub serves the same
// methods to all of them, tells each handler which client called, notifies
// or calls one client or all, and forgets a client when its connection
// closes (only that client's calls fail). The protocol is each Peer's: this
// is bookkeeping over them. `broadcastHub` makes the peers on one
// BroadcastChannel the clients of each other's hubs. With a `cluster`
// engine (`wiggum-rpc/redis`), the hub's clients are those of every process
// of the cluster: the engine carries calls, notifications and presence
// between processes; the hub tells it of its own clients and asks it for the
// others (the engine is given, never imported here, so that a page loading
// this entry loads no Redis client).

// The hub itself is hub-server.js's; the BroadcastChannel hub is broadcast-hub.js's.

export { Hub } from "./hub-server.js";
export { broadcastHub } from "./broadcast-hub.js";
export { serviceWorkerTransport } from "../transports/service-worker.js";
export { sharedWorkerTransport } from "../transports/shared-worker.js";
