// Compiled by tsc against the web build's declarations (pkg-web/: the root
// entry, websocket.js, and remote.js and stream.js, whose types add the
// methods), never run: remote<API>(), expose(), stream(), webSocketTransport() and the
// lifecycle events are typed. Each @ts-expect-error must meet an error, or
// tsc fails: the types are not `any`.
import { Peer } from "../../pkg-web/wiggum_rpc.js";
import type { Remote } from "../../pkg-web/remote.js";
import type { StreamedCall } from "../../pkg-web/stream.js";
import { type WebSocketTransport, webSocketTransport } from "../../pkg-web/websocket.js";

interface Api {
  add(a: number, b: number): number;
  Repo: {
    get_file_tree(dir?: string): Promise<{ root: string; entries: string[] }>;
  };
}

const transport: WebSocketTransport = webSocketTransport("ws://127.0.0.1:9000/", {
  reconnect: { initialDelay: 500, maxDelay: 15_000, jitter: 0.2 },
});
const peer = new Peer(transport, { jrpcOo: false, timeout: 60_000 });
const api: Remote<Api> = peer.remote<Api>();

export const sum: Promise<number> = api.add(2, 3);
export const tree: Promise<string[]> = api.Repo.get_file_tree("src").then((t) => t.entries);
// @ts-expect-error arguments are checked against the API
api.add("2", 3);
// @ts-expect-error results are promises of the API's result type
export const notANumber: number = api.add(2, 3);
// @ts-expect-error methods the API lacks are not there
api.Repo.delete_everything();

peer.expose({ ping: () => "pong" }, "Health");
// @ts-expect-error expose needs a name
peer.expose({ ping: () => "pong" });

const counted: StreamedCall<{ n: number }, string> = peer.stream<{ n: number }, string>("count", [0, 10]);
export async function consume(): Promise<string> {
  let total = 0;
  for await (const chunk of counted) total += chunk.n;
  // @ts-expect-error the result is a string
  const wrong: number = await counted.result;
  return `${total} ${await counted.result} ${wrong}`;
}
peer.request("count", [0, 3], { onChunk: (chunk) => console.log(chunk) });
peer.method("count", async (params, { signal, emit }) => {
  emit({ n: 1 });
  return signal.aborted ? "cancelled" : "done";
});

const off: () => void = peer.on("reconnecting", ({ attempt, delay }) => console.log(attempt + delay));
off();
peer.on("close", ({ code }) => console.log(code.toFixed()));
// @ts-expect-error events are named
peer.on("opened", () => {});
// @ts-expect-error a reconnected event carries its attempt, not a delay
peer.on("reconnected", ({ delay }) => console.log(delay));
export const connected: boolean = transport.connected;

// wiggum-rpc/hub: one server for many clients.
import { Hub, broadcastHub, serviceWorkerTransport, sharedWorkerTransport } from "../../pkg-web/hub.js";
const hub = new Hub({ timeout: 1000 });
hub.method<[number, number], number>("add", ([a, b], { client, signal }) => {
  const id: string = client;
  void id;
  void signal;
  return a + b;
});
hub.onNotify<{ text: string }>("note", ({ text }, client) => void `${client}: ${text}`);
export const everyone = hub.requestAll<string>("status").then((outcomes) => {
  for (const [id, outcome] of Object.entries(outcomes)) {
    if (outcome.error) void outcome.error.code;
    else void outcome.result.toUpperCase();
    void id;
  }
});
// @ts-expect-error hubs have connection and disconnection events only
hub.on("open", () => {});

const bus = broadcastHub("bus", { id: "page-1", timeout: 500 });
export const busId: string = bus.id;
export const busAll = bus.requestAll<number>("count");
declare const shared: SharedWorker;
export const sharedPeer = new Peer(sharedWorkerTransport(shared));
// @ts-expect-error a SharedWorker, not a Worker
sharedWorkerTransport(new Worker("w.js"));
const toWorker = serviceWorkerTransport();
export const workerPeer = new Peer(toWorker);
export const isConnected: boolean = toWorker.connected;
workerPeer.on("reconnected", ({ attempt }) => void attempt);
declare const swScope: ServiceWorkerGlobalScopeLike;
interface ServiceWorkerGlobalScopeLike {
  addEventListener(type: "message", listener: (event: any) => void): void;
  removeEventListener(type: "message", listener: (event: any) => void): void;
}
new Hub().serveClients(swScope, Promise.resolve());
