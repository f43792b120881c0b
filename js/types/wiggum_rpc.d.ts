// The TypeScript declarations of the root entry (`wiggum-rpc`, and
// `wiggum-rpc/web` with its `init()`), written by hand: generics, optional
// members, `extends Error`. scripts/glue.mjs puts this file in the
// package's `wiggum_rpc.d.ts` (with `init()` and `compiledModule()` where a
// build has them; src/bindings/types.rs checks its `ErrorCode`); the entries' declarations
// (js/entries, js/transports) import it as "./wiggum_rpc.js", where it is in
// the package. `tsc -p js` checks them all together, laid out as shipped.

/**
 * The root entry: `Peer`, `JSONRPCClient`, `JSONRPCServer`, `RPCError`, `ErrorCode`, `transfer`, the postMessage transports and the `Transport` base class. `wiggum-rpc/web` has the same API plus `init()` and `compiledModule()`.
 *
 * @module wiggum-rpc
 */

/** Params of a call: positional (an array) or named (an object), as the spec allows. */
export type Params = readonly unknown[] | { readonly [name: string]: unknown };

/** A transport: anything that can send a message and deliver incoming ones. */
export interface RPCTransport {
  /** Sends one message (an object, an array for a batch, or JSON text). */
  /**
   * Sends a message (JSON text when `text`). `calls`: with
   * `settled`, the ids of the calls the message carries.
   */
  send(message: unknown, transfer?: Transferable[], calls?: number[]): void;
  /** Adds a handler for incoming messages. */
  onMessage(handler: (message: unknown) => void): void;
  /** Removes a handler added with `onMessage` (called by `destroy()` when present). */
  offMessage?(handler: (message: unknown) => void): void;
  /** Releases the transport's resources (called by `destroy()` when present). */
  destroy?(): void;
  /** When true, messages are sent as JSON text. */
  readonly text?: boolean;
  /**
   * When true, messages cross as structured clones (`postMessage`), so
   * `undefined` survives: between two wiggum-rpc endpoints (both offer it in
   * `$/ready`), a batch of calls or of results then goes packed, as one
   * object of parallel arrays. Set by the postMessage transports.
   */
  readonly structured?: boolean;
  /** The default per-call timeout of endpoints on this transport, in ms. */
  readonly defaultTimeout?: number;
  /**
   * The `$/ready` handshake its endpoints do: `"hold"` (calls wait until the
   * other side has shown it is there), `"await"` (calls wait for the other
   * side's hello itself, not for the connection), `"announce"` (hello, no
   * waiting), or none (the spec only, as toward any peer).
   */
  readonly handshake?: "hold" | "await" | "announce";
  /**
   * Lifecycle events (`open`, `close`, `reconnecting`, `reconnected`,
   * `error`); returns what removes the listener. An endpoint rejects its
   * pending calls with `CONNECTION_CLOSED` when its transport emits `close`.
   */
  on?(event: string, listener: (detail: any) => void): () => void;
  /**
   * Offered by a transport that carries each message as a request of its own
   * (HTTP): call `id` has ended (answered, failed, timed out or cancelled).
   * Such a transport's `send` gets the ids of the calls each message
   * carries, and it emits `undelivered` for the calls it got no response
   * to; the endpoint decides the error each gets.
   */
  settled?(id: number): void;
  /**
   * Called whenever the endpoint has answered every call of the other
   * side's it was serving (a service worker's link keeps the worker alive
   * until then).
   */
  idle?(): void;
}

/**
 * The base of the package's transports, for writing one: it holds the
 * handlers of incoming messages, the inbox of what arrives before the first
 * handler, and the listeners of lifecycle events. A subclass sends, calls
 * `deliver` with each message that arrives and `emit` with each event, and
 * releases what it owns (listeners, a socket) in `release`.
 */
export abstract class Transport implements RPCTransport {
  abstract send(message: unknown, transfer?: Transferable[], calls?: number[]): void;
  onMessage(handler: (message: unknown) => void): void;
  offMessage(handler: (message: unknown) => void): void;
  /** Stops delivering, drops the inbox, calls `release()` (once). */
  destroy(): void;
  readonly destroyed: boolean;
  /** Listens to a lifecycle event; returns what removes the listener. */
  on(event: string, listener: (detail: any) => void): () => void;
  /** Tells the listeners of `event` (for subclasses). */
  protected emit(event: string, detail: unknown): void;
  /** Hands one incoming message to the handlers, or keeps it until there are some. */
  protected deliver(message: unknown): void;
  /** What the subclass owns; called once, by `destroy()`. */
  protected release(): void;
}

/** The details of the lifecycle events. */
export interface TransportEvents {
  open: {};
  /**
   * A connection closed. `final`: no other will follow (a WebSocket that
   * gave up reconnecting); otherwise a resumable session, if there is one,
   * keeps its calls waiting for the next.
   */
  close: { code: number; reason?: string; wasClean?: boolean; final?: boolean };
  /** The resumable session this side was in is over: the calls it carried failed with `CONNECTION_CLOSED`. */
  sessionend: undefined;
  error: { error: Error };
  reconnecting: { attempt: number; delay: number };
  reconnected: { attempt: number };
  /** An MCP server no longer knows the session (HTTP transport): initialize again. */
  sessionexpired: { sessionId: string };
  /**
   * Emitted by a transport with `settled`: it got no response to
   * `calls`. `reason`: `"failed"` (the endpoint answers `HTTP_ERROR`, or
   * `MCP_SERVER_ERROR` in the MCP dialect), `"not-json"` (`PARSE_ERROR`),
   * `"session-expired"` (`SESSION_EXPIRED`); `message` and `data` go in the
   * error; `reply`, what the reply held, may still answer some of them.
   */
  undelivered: {
    calls: number[];
    reason: "failed" | "not-json" | "session-expired";
    message: string;
    data?: unknown;
    reply?: unknown[];
  };
}
export type TransportEvent = keyof TransportEvents;

/** What one peer may ask of an endpoint (see `EndpointOptions.limits`). */
export interface Limits {
  /** Calls served at once for the peer (default 10,000); past it, `TOO_MANY_CALLS` (-32092). */
  maxInFlight?: number;
  /** The largest text message, in bytes of UTF-8 (default 10 MiB); past it, `-32600 "Message too large"`, id null. */
  maxMessageBytes?: number;
  /** The deepest nesting of a text message (default 1,000); past it, `-32600 "Message nested too deeply"`, id null. */
  maxDepth?: number;
  /**
   * The references (functions and objects sent by reference, the package's
   * references flavour) the peer may hold of this side's, and of its own this
   * side takes (default 10,000 each); past it, `TOO_MANY_REFERENCES` (-32090).
   */
  maxReferences?: number;
}

/** Options of the postMessage transports. */
export interface PostMessageTransportOptions {
  /**
   * The `$/ready` handshake (default on): endpoints say hello and tell each
   * other what they accept (batches, and how long; batch answers split as
   * they settle). Nothing waits for it: a peer that never answers gets the
   * spec's one message per call. Calls to a worker go at once (a worker, and
   * wiggum-rpc in it, keeps what comes before it listens); calls to a frame
   * still loading its document wait for its `load` (or its first message).
   * `false`: no hello, and no waiting for a frame's load. `"wait"`: calls
   * wait for the other side's hello, for a wiggum-rpc worker or frame that
   * loads the package only later (a dynamic `import()` after its document
   * loaded): what reaches it before would find no listener.
   */
  handshake?: boolean | "wait";
}

/** A postMessage transport made by one of the transport functions. */
export interface PostMessageTransport extends RPCTransport {
  send(message: unknown, transfer?: Transferable[]): void;
  onMessage(handler: (message: unknown) => void): void;
  offMessage(handler: (message: unknown) => void): void;
  /** Removes the listener, closes an owned port, drops what waits in the inbox, frees this side's Web Lock. */
  destroy(): void;
  /** The handshake this transport asks of its endpoints (undefined: none). */
  readonly handshake?: "hold" | "await" | "announce";
  /**
   * The Web Lock this side holds while it lives, named in its hello
   * (undefined where there are no Web Locks, as in Node).
   */
  readonly presence?: string;
  /**
   * Called by the endpoint with the lock the other side's hello named: when
   * it frees (a worker terminated, a frame removed or navigated away, the
   * other endpoint destroyed), the transport emits `close` and the calls
   * waiting on it fail with `CONNECTION_CLOSED`. Locks are per origin: a side
   * of another origin, or an opaque one, is not watched.
   */
  watch(presence: string): void;
  /** Lifecycle events: `close` when the other side has gone, `open` when it is back (a frame that reloaded) or loaded. */
  on<E extends TransportEvent>(event: E, listener: (detail: TransportEvents[E]) => void): () => void;
}

/**
 * A transport to another window. Accepts only messages whose `event.source`
 * is `target` and, when `origin` is given, whose `event.origin` equals it;
 * posts with that origin (`"*"` when none is given or the origin is opaque).
 */
export function windowTransport(
  target: Window,
  source?: Window | null,
  origin?: string,
  options?: PostMessageTransportOptions,
): PostMessageTransport;
/** Options of `portTransport`. */
export interface PortTransportOptions extends PostMessageTransportOptions {
  /**
   * Whether `destroy()` closes the port (default `true`). `false` leaves it
   * open, for a port another protocol shares (a file system's channel) or
   * one its owner closes: destroy() still removes this transport's listener.
   */
  closePort?: boolean;
}
/** A transport over a MessagePort; starts the port, and `destroy()` closes it unless `closePort: false`. */
export function portTransport(port: MessagePort, options?: PortTransportOptions): PostMessageTransport;
/** The main thread's side of a dedicated Worker. */
export function workerTransport(worker: Worker, options?: PostMessageTransportOptions): PostMessageTransport;
/** Inside a dedicated worker: the side that talks to `workerTransport(worker)`. */
export function selfTransport(options?: PostMessageTransportOptions): PostMessageTransport;

/** The error every failed call rejects with, and that handlers may throw. */
export class RPCError<D = unknown> extends Error {
  constructor(code: number, message: string, data?: D);
  readonly name: "RPCError";
  code: number;
  data?: D;
  /**
   * When the error thrown on the other side was an `AggregateError`: its
   * errors, each rebuilt as an `Error` of its remote name (a value that was
   * not an error, as it was). See "Errors arrive whole" in the docs.
   */
  errors?: unknown[];
}

/** A value marked to be sent with a transfer list. */
export class Transfer<T = unknown> {
  private constructor();
  readonly value: T;
  readonly transfer: Transferable[];
}
/** Marks a handler's result (or a request's params) to move `list` instead of copying it. */
export function transfer<T>(value: T, list: Iterable<Transferable>): Transfer<T>;

/** Named error codes: the spec's, Wiggum's domain codes, and how a call ended locally. */
export declare const ErrorCode: Readonly<{
  PARSE_ERROR: -32700;
  INVALID_REQUEST: -32600;
  METHOD_NOT_FOUND: -32601;
  INVALID_PARAMS: -32602;
  INTERNAL_ERROR: -32603;
  BUILD_FAILED: -32001;
  GATE_FAILED: -32002;
  PERMISSION_DENIED: -32003;
  TASK_CANCELLED: -32004;
  PREVIEW_LOAD_FAILED: -32005;
  NAVIGATION_FAILED: -32006;
  MCP_SERVER_ERROR: -32007;
  CONTEXT_OVERFLOW: -32008;
  REQUEST_TIMEOUT: -32099;
  DESTROYED: -32098;
  INVALID_RESPONSE: -32097;
  SEND_FAILED: -32096;
  CONNECTION_CLOSED: -32095;
  HTTP_ERROR: -32094;
  SESSION_EXPIRED: -32093;
  REQUEST_CANCELLED: -32800;
  TOO_MANY_CALLS: -32092;
  UNKNOWN_REFERENCE: -32091;
  TOO_MANY_REFERENCES: -32090;
}>;

/**
 * A Standard Schema (v1): what zod, valibot, arktype and others implement,
 * or a hand-written object with `~standard.validate`. Declared here so that
 * the package depends on no schema library.
 */
export interface StandardSchemaV1<Input = unknown, Output = Input> {
  readonly "~standard": {
    readonly version: 1;
    readonly vendor: string;
    readonly validate: (value: unknown) => StandardSchemaV1.Result<Output> | Promise<StandardSchemaV1.Result<Output>>;
    readonly types?: { readonly input: Input; readonly output: Output } | undefined;
    /** The Standard JSON Schema interface, where the library has it (used by `rpc.discover`). */
    readonly jsonSchema?: {
      readonly input: (options: { readonly target: string }) => Record<string, unknown>;
      readonly output: (options: { readonly target: string }) => Record<string, unknown>;
    };
  };
}
export declare namespace StandardSchemaV1 {
  type Result<Output> = { readonly value: Output; readonly issues?: undefined } | { readonly issues: ReadonlyArray<Issue> };
  interface Issue {
    readonly message: string;
    readonly path?: ReadonlyArray<PropertyKey | { readonly key: PropertyKey }> | undefined;
  }
  type InferInput<S extends StandardSchemaV1> = NonNullable<S["~standard"]["types"]>["input"];
  type InferOutput<S extends StandardSchemaV1> = NonNullable<S["~standard"]["types"]>["output"];
}

/** One finding of a schema, as `error.data` of a `-32602 Invalid params` answer carries it. */
export interface SchemaIssue {
  message: string;
  /** Where in the params, as plain keys: `["user", "age"]`, `[0]`. */
  path?: (string | number)[];
}

/**
 * What a method says of itself: reported by `listMethods`, `describeMethods`
 * and `rpc.discover` (with `wiggum-rpc/introspection` imported), and, where
 * `params` or `result` is a Standard Schema (with `wiggum-rpc/contracts`
 * imported; without it, the registration throws a TypeError), checked on
 * every call: params that fail get `-32602` with the issues in
 * `data` and never reach the handler, which gets the schema's output
 * (coercions, defaults); a result that fails is answered `-32603`.
 */
export interface MethodInfo<
  P extends StandardSchemaV1 | undefined = StandardSchemaV1 | undefined,
  R extends StandardSchemaV1 | undefined = StandardSchemaV1 | undefined,
> {
  description?: string;
  /** A schema of the params, or (described only) human-readable names, e.g. `["level: string"]`. */
  params?: P | string[];
  /** A schema of the result. */
  result?: R;
  /** Human-readable, e.g. `"string[]"` (where `result` has no schema). */
  returns?: string;
  /** The domain error codes the method answers with (listed by `rpc.discover`). */
  errors?: number[];
}

/** What a notification handler's params are checked against. */
export interface NotificationInfo<P extends StandardSchemaV1 | undefined = StandardSchemaV1 | undefined> {
  /** Params that fail it are dropped (and traced), never answered. */
  params?: P;
}

/** A record given to the `trace` option: a message that crossed the transport, or an event of this side's. */
export type TraceRecord =
  | {
      direction: "in" | "out";
      /** The message (a member of a batch is traced alone, with `batch`). */
      message: unknown;
      /** `performance.now()` when it crossed. */
      time: number;
      /** Where the member sits in its batch. */
      batch?: { index: number; size: number };
      /** An answer to a call of this side's: milliseconds since the call went out, and its method. */
      rtt?: number;
      method?: string;
    }
  | {
      event: TraceEvent;
      time: number;
      /** The id of the call of this side's it concerns. */
      id?: number;
      method?: string;
      /** The issues of a schema, the error of a refused send or a throwing schema. */
      detail?: unknown;
    };
/** What happened on this side only. */
export type TraceEvent =
  | "timeout" | "cancel" | "destroyed" | "connection-closed" | "send-failed" | "unsendable-answer"
  | "invalid-params" | "invalid-result" | "invalid-notification" | "schema-error" | "check-timeout"
  | "unhandled-notification" | "parse-error" | "undelivered"
  /** A stub collected without being released (the references flavour): released for it, and reported. */
  | "reference-leaked";

/** The `openrpc` option: what `rpc.discover` says of the server. */
export interface OpenRPCOptions {
  title?: string;
  version?: string;
  description?: string;
  /**
   * A schema library's converter, for schemas without the Standard JSON
   * Schema interface (`(schema) => toJsonSchema(schema)`); draft-07 please.
   */
  jsonSchema?: (schema: StandardSchemaV1, io: "input" | "output") => Record<string, unknown> | undefined;
}

export interface EndpointOptions {
  /**
   * A thrown error's stack travels in its `data` (see "Errors arrive
   * whole" in the docs). Off by default: a stack names files and paths.
   */
  exposeStack?: boolean;
  /**
   * Once `wiggum-rpc/introspection` is imported, servers and peers answer
   * `listMethods`, `describeMethods` (the registered methods with their
   * `MethodInfo`) and `rpc.discover` (an OpenRPC 1.3 document) unless this
   * is false.
   */
  introspection?: boolean;
  /** What `rpc.discover` says of this server. */
  openrpc?: OpenRPCOptions;
  /**
   * Receives every JSON-RPC message in (after parsing) and out (just before it is sent),
   * with the round-trip time of answers, and this side's own events. A
   * throwing hook is reported as an uncaught error; it changes nothing.
   * Needs `import "wiggum-rpc/trace"` (a TypeError without it).
   */
  trace?: (record: TraceRecord) => void;
  /** Default per-call timeout in ms (10000). `0` or `Infinity`: no timeout. */
  timeout?: number;
  /**
   * Whether the calls and notifications of one turn go out as one JSON-RPC
   * batch while other calls are in flight. By default only toward a peer that
   * announced it reads batches (a wiggum-rpc endpoint, in the `$/ready`
   * handshake of the postMessage transports); toward any other peer every
   * call is its own message, sent at once and in order. `true` batches toward
   * any peer; `false` never. A call made while nothing else is in flight
   * always goes out at once.
   */
  batch?: boolean;
  /**
   * What the server side does with an incoming batch: a number (default
   * 1,000): batches longer than that get one `-32600 "Batch too large"`;
   * `"allow"`: any length; `"reject"` (one `-32600 "Batch requests not
   * supported"`). This side's own batches are cut at the length the other
   * side announced.
   */
  batches?: "allow" | "reject" | number;
  /** What one peer may ask of this side; past a limit it gets an error answer, and its other calls go on. */
  limits?: Limits;
  /**
   * jrpc-oo's conventions: positional params travel as
   * `{"args": [...]}` both ways, and this side answers and sends
   * `system.listComponents` (its method names) whenever the connection opens.
   */
  jrpcOo?: boolean;
}

export interface RequestOptions {
  /** This call's timeout in ms, overriding the endpoint's. */
  timeout?: number;
  /** Aborting rejects the call at once (`REQUEST_CANCELLED`) and sends `$/cancelRequest`. */
  signal?: AbortSignal;
  /** Objects to transfer rather than copy (ArrayBuffers, ports). */
  transfer?: Transferable[];
  /**
   * Receives the call's progress (the handler's `progress(value)`), in
   * order, before it resolves. In MCP's dialect the request then carries
   * `_meta.progressToken`, and `value` is MCP's progress params.
   */
  onProgress?: (value: any) => void;
  /** Each progress moves the deadline to `timeout` after it (true). */
  resetTimeoutOnProgress?: boolean;
  /**
   * A bound in ms that no progress moves (none by default): that long after
   * the call was made, it rejects with `REQUEST_TIMEOUT` (-32099).
   */
  maxTotalTimeout?: number;
  /**
   * Metadata for the call (a trace context, an idempotency key…): sent as
   * the request's `meta` member to a peer whose hello offered metadata (a
   * wiggum-rpc endpoint), never to any other. A call with a timeout (its
   * own, or one given to the endpoint) also sends `deadline`, the ms it has.
   */
  meta?: CallMeta;
  /**
   * The call may safely run twice: the `retry()` interceptor of
   * `wiggum-rpc/middleware` makes it again after a lost connection, with
   * one `meta.idempotencyKey` for every attempt.
   */
  idempotent?: boolean;
}

/** A call's metadata: plain data, structured-cloneable (JSON on a text transport). */
export interface CallMeta {
  /** The ms the caller gives the call: the handler's signal aborts when they have passed. */
  deadline?: number;
  /** What a server's `idempotency()` middleware recognises a repeated call by. */
  idempotencyKey?: string;
  [name: string]: unknown;
}

/** What a middleware (`use`) sees of a call it wraps. */
export interface IncomingCall<Ctx extends object = {}> {
  readonly method: string;
  /** The id the caller gave the call (undefined for a notification). */
  readonly id: string | number | null | undefined;
  /** The params the handler gets (a middleware may replace them). */
  params: unknown;
  /** The caller's metadata: data from the other side, to check before trusting. */
  readonly meta: CallMeta | undefined;
  /** What the handler gets as its second argument: extend it (`context.user = …`). */
  readonly context: CallContext & Ctx;
  /** A notification: nothing goes back, whatever the chain does. */
  readonly notification: boolean;
}

/**
 * Wraps the calls a side serves: `next()` runs the rest of the chain and
 * the handler, resolving with the result (rejecting with what it threw).
 * Return `next()`'s result, or answer or throw instead. `Added`: what it
 * puts in the context, which the handlers registered after `use` then see.
 */
export type Middleware<Ctx extends object = {}, Added extends object = {}> =
  (call: IncomingCall<Ctx & Partial<Added>>, next: () => Promise<unknown>) => unknown;

/** What an interceptor (`intercept`) sees of a call this side makes. */
export interface OutgoingCall {
  method: string;
  params: unknown;
  /** The options the call is made with (a copy: change it before `next()`). */
  options: RequestOptions;
  /** The metadata that crosses to a peer that takes it (a copy of `options.meta`). */
  meta: CallMeta;
  /** The id of the attempt made last, once `next()` has been called. */
  readonly id?: number;
}

/**
 * Wraps the calls a side makes: `next()` makes the call as `call` then
 * says, and resolves with its result; calling it again makes it again (a retry).
 */
export type Interceptor = (call: OutgoingCall, next: () => Promise<unknown>) => Promise<unknown>;

export interface NotifyOptions {
  transfer?: Transferable[];
}

/** What a method handler that declares a second parameter receives. */
export interface CallContext {
  /**
   * Aborted when the caller cancels the call (`$/cancelRequest`; the reason is
   * an RPCError with code REQUEST_CANCELLED, ready to throw) or the endpoint is
   * destroyed (reason code DESTROYED). The call's answer is still sent.
   */
  readonly signal: AbortSignal;
  /**
   * Reports progress to the caller (`$/progress`, or MCP's
   * `notifications/progress`), which keeps its call from timing out. Does
   * nothing toward a caller that does not read it, or once answered.
   */
  readonly progress: (value: unknown) => void;
  /** The caller's metadata (data from the other side), or undefined. */
  readonly meta: CallMeta | undefined;
}

/** A method handler: gets the params untouched; returns (or resolves to) the result. */
export type MethodHandler<P = unknown, R = unknown, Ctx extends object = {}> = (params: P, context: CallContext & Ctx) => R | Promise<R>;
/** A notification handler. */
export type NotificationHandler<P = unknown> = (params: P) => void | Promise<void>;

/** The calling side of an endpoint: `JSONRPCClient` and `Peer`. */
export interface Calls {
  /** Resolves with the result; rejects with `RPCError` (see `ErrorCode`). */
  request<T = unknown>(method: string, params?: Params | Transfer<Params>, options?: RequestOptions): Promise<T>;
  /** Sends a notification: no id, no response. */
  notify(method: string, params?: Params | Transfer<Params>, options?: NotifyOptions): void;
  /** Calls waiting for a response. */
  readonly pending: number;
}

/** The params a handler gets under a params schema (its output), or `unknown`. */
export type SchemaOutput<S> = S extends StandardSchemaV1 ? StandardSchemaV1.InferOutput<S> : unknown;
/** What a handler may return under a result schema (its input), or `unknown`. */
export type SchemaInput<S> = S extends StandardSchemaV1 ? StandardSchemaV1.InferInput<S> : unknown;

/** The serving side of an endpoint: `JSONRPCServer` and `Peer`; `Ctx`: what its middleware adds to handlers' context. */
export interface Serves<Ctx extends object = {}> {
  /** A method whose params (and result) a schema checks: the handler's types come from the schemas. */
  method<P extends StandardSchemaV1 | undefined = undefined, R extends StandardSchemaV1 | undefined = undefined>(
    name: string,
    handler: MethodHandler<SchemaOutput<P>, SchemaInput<R>, Ctx>,
    info: MethodInfo<P, R> & ({ params: P } | { result: R }),
  ): void;
  /** A method without schemas: its params typed by the caller of `method`, or unknown. */
  method<P = unknown, R = unknown>(name: string, handler: MethodHandler<P, R, Ctx>, info?: MethodInfo<undefined, undefined>): void;
  onNotify<S extends StandardSchemaV1>(name: string, handler: NotificationHandler<StandardSchemaV1.InferOutput<S>>,
    info: NotificationInfo<S> & { params: S }): void;
  onNotify<P = unknown>(name: string, handler: NotificationHandler<P>, info?: NotificationInfo<undefined>): void;
}

/** What every endpoint has. */
export interface Lifecycle {
  /**
   * Listens to the transport's lifecycle events; returns what removes the
   * listener. Throws if the transport has none (a plain object without
   * `on`). Every transport of the package has them: a postMessage transport
   * emits `close` when the other side has gone (see `PostMessageTransport.watch`).
   */
  on<E extends TransportEvent>(event: E, listener: (detail: TransportEvents[E]) => void): () => void;
  /**
   * The id of the resumable session this side is in (a WebSocket that
   * reconnects, toward a hub that keeps sessions), or undefined. While it
   * lasts, a dropped connection loses no call.
   */
  readonly session: string | undefined;
  /** Rejects every pending call (`DESTROYED`), stops serving, removes the listener, destroys the transport. */
  destroy(): void;
  /** The same as `destroy()`, which leaves nothing to release (kept for code that calls it). */
  free(): void;
}

/** Calls methods on the other side of a transport. */
export class JSONRPCClient {
  constructor(transport: RPCTransport, options?: EndpointOptions);
}
export interface JSONRPCClient extends Calls, Lifecycle {}

/** Serves methods and notifications to the other side of a transport. */
export class JSONRPCServer<Ctx extends object = {}> {
  constructor(transport: RPCTransport, options?: EndpointOptions);
}
export interface JSONRPCServer<Ctx extends object = {}> extends Serves<Ctx>, Lifecycle {}

/** Client and server on one transport, both directions at once. */
export class Peer<Ctx extends object = {}> {
  constructor(transport: RPCTransport, options?: EndpointOptions);
}
export interface Peer<Ctx extends object = {}> extends Calls, Serves<Ctx>, Lifecycle {}

// Streamed chunks: a call's `onChunk`, a handler's `emit`.
export interface RequestOptions {
  /**
   * Receives the call's chunks (`stream.chunk`), in order, before it resolves.
   * With `window`, a chunk counts as taken once a promise it returns settles.
   */
  onChunk?: (chunk: any) => void | Promise<unknown>;
  /**
   * Flow control: the other side may send at most this many chunks ahead of
   * what `onChunk` has taken (`stream.credit`), when its hello offered it (a
   * wiggum-rpc endpoint); toward any other, the call streams freely. The
   * bound holds from the credit's arrival: a handler that emits before it
   * (in its first turn) may send about one window more.
   */
  window?: number;
}
export interface CallContext {
  /**
   * Sends a chunk of the result ahead of it (`stream.chunk`); `stream.end`
   * follows before the response. Does nothing once the call has been
   * answered. Resolves when the handler may send the next: at once, unless
   * the caller's window is full (then when it has taken more, or the call
   * is over). `await emit(chunk)` keeps a fast producer at the consumer's pace.
   */
  readonly emit: (chunk: unknown) => Promise<void>;
}
