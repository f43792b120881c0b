// Types of `wiggum-rpc/http` (http.js): the root entry's glue is the module
// beside this file in every build.
import type { EndpointOptions, Peer, RPCTransport, TransportEvent, TransportEvents } from "./wiggum_rpc.js";

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

/** A transport made by `httpTransport`. */
export interface HttpTransport extends RPCTransport {
  send(message: string | object): void;
  onMessage(handler: (message: unknown) => void): void;
  offMessage(handler: (message: unknown) => void): void;
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
  /** Calls posted and not answered yet. */
  readonly pending: number;
  /**
   * MCP: resolves once the session is ready for what the server starts (the
   * GET stream answered, after `notifications/initialized` was accepted).
   */
  readonly listened: Promise<void>;
}

/** JSON-RPC over HTTP POST, or MCP's Streamable HTTP with `{ mcp: true }`. */
export function httpTransport(url: string | URL, options?: HttpTransportOptions): HttpTransport;

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

export interface ConnectMcpOptions extends Omit<HttpTransportOptions, "mcp">, Omit<InitializeMcpOptions, "transport"> {
  /** The Peer's options. */
  peer?: EndpointOptions;
}

/** A Peer in an initialized MCP session, with the server's initialize result. */
export interface McpPeer extends Peer {
  readonly server: McpInitializeResult;
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

/**
 * An MCP client session over Streamable HTTP: a transport in MCP mode, a
 * Peer, and `initializeMcp`.
 */
export function connectMcp(url: string | URL, options?: ConnectMcpOptions): Promise<McpPeer>;
