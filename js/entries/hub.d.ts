// Types of `wiggum-rpc/hub` (hub.js): one server for many clients.
/**
 * One server for many clients: `Hub` (WebSocket servers, SharedWorker and service-worker pages, any transport), `broadcastHub`, and the pages' side of a SharedWorker or service worker.
 *
 * @module wiggum-rpc/hub
 */

import type {
  CallContext,
  EndpointOptions,
  Interceptor,
  Middleware,
  MethodInfo,
  NotificationInfo,
  Params,
  Peer,
  PostMessageTransportOptions,
  RequestOptions,
  RPCError,
  RPCTransport,
  Transport,
} from "./wiggum_rpc.js";

/** What a hub's method handler gets beside its params: the caller's id, and the usual context. */
export interface HubCallContext extends CallContext {
  readonly client: string;
}

/** Anything that emits `connection` with a socket: Node's `ws` `WebSocketServer`. */
export interface SocketServer {
  on(event: "connection", listener: (socket: any, request?: any) => void): unknown;
  off(event: "connection", listener: (socket: any, request?: any) => void): unknown;
}

/** Who `Hub.attach` lets in (besides clients that send no Origin and the server's own pages). */
export interface AttachOptions {
  /** Page origins allowed to connect, compared as origins; `"*"`: any. */
  origins?: string | string[];
  /** Refuses (false, or throws) or names (returns the client id) a connection; may be async. */
  authenticate?: (request: any) => unknown;
  /**
   * Resumable sessions for clients that ask (a `webSocketTransport` with
   * `reconnect`): a client whose socket drops keeps its id, its calls and
   * what was sent to it for `grace` ms, and gets them on its next socket.
   * `false`: none. Clients that do not ask are served as before; one that
   * says nothing is announced after `wait` ms (its first message may
   * present a session).
   */
  sessions?: false | SessionOptions;
}

export interface SessionOptions {
  /** How long a session waits for its client, in ms (60000). */
  grace?: number;
  /** The most messages one session keeps for its client; past it, the session ends (1000). */
  maxKept?: number;
  /** The most sessions waiting for their clients at once; past it, the oldest ends (1000). */
  max?: number;
  /** How long a new socket's first message is waited for, in ms (500). */
  wait?: number;
}

/**
 * What joins a hub to the hubs of other processes (`redisCluster()` of
 * `wiggum-rpc/redis`): the hub tells it of its own clients and asks it to
 * carry calls and notifications to the others'; it tells the hub who is
 * connected where. An engine serves one hub. Its methods are the hub's to
 * call.
 */
export interface ClusterEngine {
  /** This process's id in the cluster (what `nodeOf` says of its own clients; the prefix of their ids). */
  readonly node: string;
  start(hub: unknown): void;
  /** A client connected here; `session`, the id of the session it holds here, if any. */
  connected(id: string, session?: string): void;
  disconnected(id: string, session?: string): void;
  /**
   * Sessions that move (optional): a socket whose first frame presents
   * `session`, which this process does not hold, handed to the engine: it
   * relays the socket to the process that holds the session, or calls
   * `fresh(frames)` for a new client with a session of its own.
   */
  take?(socket: unknown, first: string, session: string, fresh: (frames: string[]) => void): void;
  /** Sessions handed over when this process leaves (optional): see `Hub.handOff`. */
  handOff?(options?: HandOffOptions): Promise<HandOffResult>;
  request(id: string, node: string, method: string, params: Params | undefined, options?: RequestOptions): Promise<any>;
  notify(id: string, node: string, method: string, params?: Params): void;
  notifyAll(method: string, params?: Params): void;
  destroy(): void;
}

export interface HandOffOptions {
  /** How long to wait for the clients to come back through other processes, in ms (10,000). */
  wait?: number;
}

export interface HandOffResult {
  /** Sessions handed over to the processes their clients reconnected to. */
  handed: number;
  /** Sessions whose client did not come back within `wait`: they end with this process. */
  kept: number;
}

export interface HubOptions extends EndpointOptions {
  /**
   * Joins this hub to the hubs of other processes: its clients are then
   * theirs too (`clients`, `request`, `notify`, `notifyAll`, `requestAll`,
   * `connection` and `disconnection` span every process). Params, results
   * and errors' data that cross processes go as JSON.
   */
  cluster?: ClusterEngine;
}

/** How one client's call went, in `requestAll`'s result. */
export type ClientOutcome<T> = { result: T; error?: undefined } | { error: RPCError; result?: undefined };

/**
 * One server for many clients: each connection gets an id and a Peer of its
 * own; the same methods are served to all.
 */
export class Hub<Ctx extends object = {}> {
  /** `options`: each client's Peer options (`timeout`, `trace`, …), and `cluster`. */
  constructor(options?: HubOptions);
  /** The ids of the clients connected now (to any process of its cluster). */
  readonly clients: string[];
  /**
   * The node (process) client `id` is connected to, by the cluster engine's
   * id; undefined for a client it does not know, or any client of a hub
   * without a cluster.
   */
  nodeOf(id: string): string | undefined;
  /** Serves `name` to every client, now and later; `context.client` is the caller's id. */
  method<P = unknown, R = unknown>(
    name: string,
    handler: (params: P, context: HubCallContext & Ctx) => R | Promise<R>,
    info?: MethodInfo,
  ): void;
  /**
   * Adds a middleware around every client's calls and notifications, now
   * and later (`context.client` names the caller); typed with what it adds
   * (`Added`) for the handlers registered from then on.
   */
  use<Added extends object = {}>(middleware: Middleware<Ctx & { client: string }, Added>): Hub<Ctx & Added>;
  /** Adds an interceptor around the calls the hub makes to its clients. */
  intercept(interceptor: Interceptor): this;
  /** Handles a notification from any client; the second argument is the client's id. */
  onNotify<P = unknown>(name: string, handler: (params: P, client: string) => void | Promise<void>, info?: NotificationInfo): void;
  /** A new client on `transport`; returns its id. It leaves when the transport emits `close`, or on `drop(id)`. */
  accept(transport: RPCTransport, id?: string): string;
  /** The client is gone: its pending calls fail, its Peer and transport are destroyed. */
  drop(id: string): boolean;
  /** The Peer of a client. */
  peer(id: string): Peer | undefined;
  /**
   * Calls a method of one client (rejects with `CONNECTION_CLOSED` if there
   * is no such client, or, in a cluster, when its process is gone or the
   * cluster is unreachable).
   */
  request<T = unknown>(id: string, method: string, params?: Params, options?: RequestOptions): Promise<T>;
  /** Notifies one client (here or in another process of its cluster); false if there is no such client. */
  notify(id: string, method: string, params?: Params): boolean;
  /** Notifies every client (of every process of its cluster: each once, in the order sent). */
  notifyAll(method: string, params?: Params): void;
  /** Calls every client connected now; never rejects: each client's result or error, by id. */
  requestAll<T = unknown>(method: string, params?: Params, options?: RequestOptions): Promise<Record<string, ClientOutcome<T>>>;
  on(event: "connection" | "disconnection", listener: (client: string) => void): () => void;
  /** A connection `attach()` turned away, and why. */
  on(event: "refused", listener: (refused: { origin?: string; host?: string; status: number; reason: string }) => void): () => void;
  /** Takes every connection of a WebSocket server (`new WebSocketServer({ port })` of the `ws` package). */
  attach(server: SocketServer, options?: AttachOptions): this;
  /**
   * Takes every page that connects to this SharedWorker (`scope`: its global
   * scope). Pages that use `sharedWorkerTransport` are dropped when they go.
   * Call it before the worker awaits anything (the first page connects as
   * the worker starts); `ready` (the web build's `init()`) is waited for
   * before the pages that connected early are taken.
   */
  listen(scope?: { addEventListener(type: "connect", listener: (event: MessageEvent) => void): void;
    removeEventListener(type: "connect", listener: (event: MessageEvent) => void): void }, ready?: Promise<unknown>): this;
  /**
   * In a service worker: serves every client page that connects with
   * `serviceWorkerTransport`, each under its `Client` id. Call it while the
   * worker's script first runs; `ready` (the web build's `init()`) is waited
   * for before any message is handled. Calls are kept alive (`waitUntil`)
   * until answered.
   */
  serveClients(scope?: { addEventListener(type: "message", listener: (event: any) => void): void;
    removeEventListener(type: "message", listener: (event: any) => void): void }, ready?: Promise<unknown>): this;
  /**
   * Before this process stops (a rolling deploy), with a cluster engine that
   * moves sessions (`redisCluster`): closes every client's socket (1012) and
   * refuses new ones; each client redials to another process, which takes
   * its session over (id, kept messages, counts) once no handler of the
   * client's runs here. Resolves once every session has moved, or after
   * `wait`. Call `destroy()` after. Rejects without such an engine.
   */
  handOff(options?: HandOffOptions): Promise<HandOffResult>;
  /** Drops every client and stops taking connections (attached servers stay up). */
  destroy(): void;
}

export interface BroadcastHubOptions extends EndpointOptions {
  /** This peer's id on the channel (a random UUID by default). */
  id?: string;
}

/** A hub whose clients are the other peers on one BroadcastChannel, by their ids. */
export interface BroadcastHub extends Hub {
  /** This peer's id on the channel. */
  readonly id: string;
}

/**
 * The peers on one BroadcastChannel (or a channel's name) as a hub's clients:
 * each announces its id when it joins and says goodbye on `destroy()`; calls
 * and answers go to one peer only; `notifyAll` and `requestAll` reach every
 * peer there now. Other traffic on the channel is left alone.
 */
export function broadcastHub(channel: BroadcastChannel | string, options?: BroadcastHubOptions): BroadcastHub;

/**
 * A page's transport to a SharedWorker whose hub `listen()`s: the worker's
 * port, and a Web Lock held while the page lives, so the hub drops the page
 * when it goes (closed, navigated away, crashed) or calls `destroy()`.
 */
export function sharedWorkerTransport(worker: SharedWorker, options?: PostMessageTransportOptions): RPCTransport;

/** A page's transport to its service worker: `connected`, and the lifecycle events. */
export interface ServiceWorkerTransport extends Transport {
  /** Whether a worker instance is connected now. */
  readonly connected: boolean;
}

/**
 * A page's transport to its service worker (whose hub `serveClients()`):
 * waits for an active worker, follows it when the browser stops it or it is
 * replaced (`close`, then `open` and `reconnected` with the next instance).
 * Calls in flight when a worker goes reject with `CONNECTION_CLOSED` (none is
 * sent twice); calls made meanwhile wait for the next connection.
 */
export function serviceWorkerTransport(container?: ServiceWorkerContainer): ServiceWorkerTransport;
