// Types of `wiggum-rpc/http` (http.js): the root entry's glue is the module
// beside this file in every build.
/**
 * JSON-RPC over HTTP, MCP's Streamable HTTP and MCP's older HTTP+SSE:
 * `httpTransport`, `sseTransport`, `connectMcp`, `initializeMcp`.
 *
 * @module wiggum-rpc/http
 */

import type {
  EndpointOptions,
  MethodHandler,
  MethodInfo,
  Params,
  Peer,
  RequestOptions,
  Transfer,
  Transport,
  TransportEvent,
  TransportEvents,
} from "./wiggum_rpc.js";

export interface HttpTransportOptions {
  /** MCP's Streamable HTTP: sessions, `MCP-Protocol-Version`, MCP's cancellation, no batches. */
  mcp?: boolean;
  /** Sent with every request (for example `{ authorization: "Bearer …" }`). */
  headers?: Record<string, string>;
  /** The `fetch` to use (the global one by default). */
  fetch?: (input: string, init?: RequestInit) => Promise<Response>;
  /** The default per-call timeout of endpoints on this transport, in ms (60000). */
  timeout?: number;
  /** Attempts to resume a dropped SSE stream with `Last-Event-ID` (5). */
  maxResumes?: number;
  /** MCP: open the GET stream for messages the server starts (true; a 405 means it has none). */
  listen?: boolean;
  /** MCP: the revision to send in `MCP-Protocol-Version` (by default the one the initialize result names). */
  protocolVersion?: string;
}

/** A transport made by `httpTransport`, on the package's `Transport` base. */
export interface HttpTransport extends Transport {
  send(message: string | object): void;
  on<E extends TransportEvent>(event: E, listener: (detail: TransportEvents[E]) => void): () => void;
  /** Aborts what is in flight; in MCP mode ends the session with DELETE. */
  destroy(): void;
  readonly text: true;
  readonly defaultTimeout: number;
  /** `"mcp"` in MCP mode. */
  readonly dialect: "mcp" | undefined;
  /** The MCP session the server gave, if any. */
  readonly sessionId: string | undefined;
  /** The MCP revision sent in `MCP-Protocol-Version`, once known. */
  readonly protocolVersion: string | undefined;
  /** Calls posted that have not ended yet. */
  readonly pending: number;
  settled(id: number): void;
  /**
   * MCP: resolves once the session is ready for what the server starts (the
   * GET stream answered, after `notifications/initialized` was accepted).
   */
  readonly listened: Promise<void>;
}

/** JSON-RPC over HTTP POST, or MCP's Streamable HTTP with `{ mcp: true }`. */
export function httpTransport(url: string | URL, options?: HttpTransportOptions): HttpTransport;

export interface SseTransportOptions {
  /** Sent with the stream's GET and every POST (for example `{ authorization: "Bearer …" }`). */
  headers?: Record<string, string>;
  /** The `fetch` to use (the global one by default). */
  fetch?: (input: string, init?: RequestInit) => Promise<Response>;
  /** The default per-call timeout of endpoints on this transport, in ms (60000). */
  timeout?: number;
  /** The revision to send in `MCP-Protocol-Version` (by default the one the initialize result names). */
  protocolVersion?: string;
}

/** The `close` event of an `sseTransport`: the stream ended, and with it the session. */
export interface SseClosed {
  /** 1001: the server ended the stream; 1006: it broke, was refused, or opened none. */
  code: number;
  reason: string;
  final: true;
  /** The GET's status, when it opened no stream. */
  status?: number;
  /** The GET's body, when it opened no stream. */
  body?: string;
}

/** A transport made by `sseTransport`: MCP's HTTP+SSE (2024-11-05), on the package's `Transport` base. */
export interface SseTransport extends Transport {
  send(message: string | object): void;
  on<E extends TransportEvent>(event: E, listener: (detail: TransportEvents[E]) => void): () => void;
  /** Closes the stream (the server ends the session) and aborts the POSTs in flight. */
  destroy(): void;
  readonly text: true;
  readonly defaultTimeout: number;
  readonly dialect: "mcp";
  /** Where messages are POSTed: the URL the stream's `endpoint` event named, once it came. */
  readonly endpoint: string | undefined;
  /** Why the stream ended, once it has (then every send throws). */
  readonly closed: SseClosed | undefined;
  /** The MCP revision sent in `MCP-Protocol-Version`, once known. */
  readonly protocolVersion: string | undefined;
  /** Calls posted that have not ended yet. */
  readonly pending: number;
  settled(id: number): void;
  /** Resolves once the stream has named its endpoint, or has ended. */
  readonly listened: Promise<void>;
}

/**
 * MCP's HTTP+SSE transport (2024-11-05): a GET opens the session's event
 * stream, whose `endpoint` event names the URL (of the stream's origin) each
 * message is POSTed to; every answer comes on the stream. When the stream
 * ends, the session does: calls in flight fail with `CONNECTION_CLOSED`,
 * later sends throw, nothing reconnects.
 */
export function sseTransport(url: string | URL, options?: SseTransportOptions): SseTransport;

/** The MCP revisions `connectMcp` speaks, newest first. */
export declare const MCP_PROTOCOL_VERSIONS: readonly string[];

/** What an MCP server says of itself in its initialize result. */
export interface McpInitializeResult {
  protocolVersion: string;
  capabilities: Record<string, unknown>;
  serverInfo: { name: string; version: string; [key: string]: unknown };
  instructions?: string;
  [key: string]: unknown;
}

/** The transports `connectMcp` speaks: Streamable HTTP, and the older HTTP+SSE (2024-11-05). */
export type McpTransportName = "streamable-http" | "sse";

export interface ConnectMcpOptions extends Omit<HttpTransportOptions, "mcp">, Omit<InitializeMcpOptions, "transport"> {
  /**
   * The one transport to use. By default Streamable HTTP, falling back to
   * HTTP+SSE at the same URL when the POST of `initialize` gets a 4xx.
   */
  transport?: McpTransportName;
  /** The Peer's options. */
  peer?: EndpointOptions;
}

/** Content of a tool result or a prompt message. */
export type McpContent =
  | { type: "text"; text: string; [key: string]: unknown }
  | { type: "image" | "audio"; data: string; mimeType: string; [key: string]: unknown }
  | { type: "resource_link"; uri: string; name: string; [key: string]: unknown }
  | { type: "resource"; resource: { uri: string; text?: string; blob?: string; mimeType?: string }; [key: string]: unknown };

export interface McpTool {
  name: string;
  title?: string;
  description?: string;
  inputSchema: { type: "object"; [key: string]: unknown };
  outputSchema?: { type: "object"; [key: string]: unknown };
  [key: string]: unknown;
}

export interface McpCallToolResult {
  content: McpContent[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
  [key: string]: unknown;
}

/** `_meta` of a request: a progress token asks for `notifications/progress`. */
export interface McpRequestMeta {
  progressToken?: string | number;
  [key: string]: unknown;
}

/** The requests a client makes, by method: their params and results (MCP 2025-06-18 and later). */
export interface McpClientRequests {
  ping: { params: Record<string, never> | undefined; result: Record<string, never> };
  "tools/list": { params: { cursor?: string } | undefined; result: { tools: McpTool[]; nextCursor?: string } };
  "tools/call": {
    params: { name: string; arguments?: Record<string, unknown>; _meta?: McpRequestMeta };
    result: McpCallToolResult;
  };
  "resources/list": {
    params: { cursor?: string } | undefined;
    result: { resources: { uri: string; name: string; [key: string]: unknown }[]; nextCursor?: string };
  };
  "resources/read": {
    params: { uri: string };
    result: { contents: { uri: string; text?: string; blob?: string; mimeType?: string }[] };
  };
  "prompts/list": {
    params: { cursor?: string } | undefined;
    result: { prompts: { name: string; description?: string; [key: string]: unknown }[]; nextCursor?: string };
  };
  "prompts/get": {
    params: { name: string; arguments?: Record<string, string> };
    result: { description?: string; messages: { role: "user" | "assistant"; content: McpContent }[] };
  };
}

/** The requests a server makes of its client, by method. */
export interface McpServerRequests {
  ping: { params: Record<string, never> | undefined; result: Record<string, never> };
  "sampling/createMessage": {
    params: { messages: { role: "user" | "assistant"; content: McpContent }[]; maxTokens: number; [key: string]: unknown };
    result: { role: "assistant"; content: McpContent; model: string; stopReason?: string; [key: string]: unknown };
  };
  "elicitation/create": {
    params: { message: string; requestedSchema?: Record<string, unknown>; mode?: "form" | "url"; [key: string]: unknown };
    result: { action: "accept" | "decline" | "cancel"; content?: Record<string, unknown> };
  };
  "roots/list": { params: Record<string, never> | undefined; result: { roots: { uri: string; name?: string }[] } };
}

/** A Peer in an initialized MCP session, with the server's initialize result; MCP's methods are typed. */
export interface McpPeer extends Peer {
  readonly server: McpInitializeResult;
  /** The transport the session runs on (set by `connectMcp`). */
  readonly transport: McpTransportName;
  request<M extends keyof McpClientRequests>(
    method: M,
    params?: McpClientRequests[M]["params"],
    options?: RequestOptions,
  ): Promise<McpClientRequests[M]["result"]>;
  /** Any other method (MCP's own names take the typed signature above). */
  request<T = unknown, M extends string = string>(
    method: M & (M extends keyof McpClientRequests ? never : unknown),
    params?: Params | Transfer<Params>,
    options?: RequestOptions,
  ): Promise<T>;
  method<M extends keyof McpServerRequests>(
    name: M,
    handler: MethodHandler<McpServerRequests[M]["params"], McpServerRequests[M]["result"]>,
    info?: MethodInfo,
  ): void;
  /** Any other method (MCP's own names take the typed signature above). */
  method<P = unknown, R = unknown, M extends string = string>(
    name: M & (M extends keyof McpServerRequests ? never : unknown),
    handler: MethodHandler<P, R>,
    info?: MethodInfo,
  ): void;
}

export interface InitializeMcpOptions {
  clientInfo?: { name: string; version: string; [key: string]: unknown };
  /** The client's capabilities (`sampling`, `elicitation`, `roots`, …). */
  capabilities?: Record<string, unknown>;
  /** The revision to ask for (the newest of `MCP_PROTOCOL_VERSIONS`). */
  protocolVersion?: string;
  /** The MCP transport under the Peer: initialization waits for its GET stream. */
  transport?: { readonly listened?: Promise<void> };
}

/**
 * Opens an MCP session on a Peer over an MCP transport: initialize, check
 * the revision, `notifications/initialized`, `ping` answered.
 */
export function initializeMcp(peer: Peer, options?: InitializeMcpOptions): Promise<McpInitializeResult>;
// (After it, `peer as McpPeer` types MCP's methods on that Peer.)

/**
 * An MCP client session: Streamable HTTP, or HTTP+SSE when the server
 * answers Streamable HTTP's POST with a 4xx (or when `transport` says so),
 * a Peer on it, and `initializeMcp`.
 */
export function connectMcp(url: string | URL, options?: ConnectMcpOptions): Promise<McpPeer>;
