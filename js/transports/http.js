// The HTTP transports, the package's `wiggum-rpc/http` entry: JSON-RPC over
// HTTP POST, and MCP's Streamable HTTP (2025-06-18 and later), which is a
// superset of it; MCP's older HTTP+SSE transport (2024-11-05); and
// `initializeMcp` / `connectMcp`, an MCP client session on top, which falls
// back from Streamable HTTP to HTTP+SSE as MCP's backwards compatibility
// rules say.
//
// Every outgoing message is one POST. Its reply is read by content type: a
// JSON body (one message or an array), an SSE stream whose events each carry
// a message (requests and notifications from the server may come before the
// response), or 202/204 with no body. What HTTP says that is not JSON-RPC
// (a 500 page, a 401, a body that is not JSON, a stream that ends before its
// answer) becomes the error response of the calls it carried, delivered to
// the endpoint like any other, so no call waits for an answer that cannot
// come.
//
// In MCP mode (`mcp: true`) the transport says `dialect = "mcp"`: the
// endpoint then cancels with `notifications/cancelled` and never batches. The
// transport keeps the session the server gives (`Mcp-Session-Id`), sends
// `MCP-Protocol-Version` once the initialize result named it, resumes a
// dropped stream with `Last-Event-ID` after the server's `retry`, opens the
// GET stream for server-initiated messages, and ends the session with
// DELETE on `destroy()`.
//
// HTTP+SSE (`sseTransport`) is in sse.js, re-exported here.

import { ErrorCode, Peer, RPCError, Transport } from "./wiggum_rpc.js";
import { drain, isEventStream, parsed, readEvents } from "./event-stream.js";
import { sseTransport } from "./sse.js";

export { sseTransport };

/** The MCP revisions `connectMcp` speaks, newest first. */
export const MCP_PROTOCOL_VERSIONS = Object.freeze(["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"]);

/** How long to wait before resuming a stream when the server named no `retry`. */
const DEFAULT_RETRY_MS = 1000;

class HttpTransport extends Transport {
  /** Outgoing messages are JSON text: each is a POST body as it is. */
  text = true;
  defaultTimeout;
  /** `"mcp"` in MCP mode: MCP's cancellation, no batches (read by the endpoint). */
  dialect;
  #url;
  #fetch;
  #headers;
  #mcp;
  #maxResumes;
  #listen;
  /** The ids of the calls posted that have not ended yet. */
  #pending = new Set();
  /** Every fetch in flight, aborted by `destroy()`. */
  #inflight = new Set();
  #session;
  #protocolVersion;
  /** MCP: the server has answered `initialize` in this session. */
  #initialized = false;
  #listening = false;
  /** Settles `listened` (see there). */
  #listenSettled;
  /**
   * MCP: resolves once the session is ready for what the server starts: the
   * GET stream answered (open, or a 405), after `notifications/initialized`
   * was accepted. `connectMcp` waits for it, so a server request sent right
   * after initialization is not lost.
   */
  listened = new Promise((settle) => (this.#listenSettled = settle));

  constructor(url, options = {}) {
    super();
    if (typeof url !== "string" && !(url instanceof URL)) throw new TypeError("httpTransport: pass the endpoint's URL");
    this.#url = String(url);
    this.#fetch = options.fetch ?? globalThis.fetch?.bind(globalThis);
    if (typeof this.#fetch !== "function") throw new TypeError("httpTransport: no global fetch here; pass { fetch }");
    this.#headers = { ...(options.headers ?? {}) };
    this.#mcp = options.mcp === true;
    this.dialect = this.#mcp ? "mcp" : undefined;
    this.defaultTimeout = options.timeout ?? 60_000;
    this.#maxResumes = options.maxResumes ?? 5;
    this.#listen = options.listen !== false;
    this.#protocolVersion = options.protocolVersion;
  }

  /** The MCP session the server gave, if any. */
  get sessionId() {
    return this.#session;
  }

  /** The MCP revision sent in `MCP-Protocol-Version`, once known. */
  get protocolVersion() {
    return this.#protocolVersion;
  }

  /** Calls posted that have not ended yet. */
  get pending() {
    return this.#pending.size;
  }

  /**
   * POSTs one message (or batch), JSON text; its reply arrives through the
   * handlers. `calls`: the ids of the calls it carries (the endpoint's).
   */
  send(message, _transfer, calls = []) {
    if (this.destroyed) throw new Error("transport destroyed");
    const body = typeof message === "string" ? message : JSON.stringify(message);
    for (const id of calls) this.#pending.add(id);
    this.#post(body, calls);
  }

  /**
   * The endpoint says call `id` has ended (answered, failed, timed out or
   * cancelled). Having this, the transport is given the ids of the calls
   * each message carries, and reports those it got no response to
   * (`undelivered`); the endpoint decides their errors.
   */
  settled(id) {
    this.#pending.delete(id);
  }

  /** Aborts what is in flight, and ends the MCP session (DELETE; a 405 is fine). */
  release() {
    for (const controller of this.#inflight) controller.abort();
    this.#inflight.clear();
    this.#pending.clear();
    this.#listenSettled();
    if (this.#session !== undefined) {
      const headers = this.#requestHeaders("application/json, text/event-stream");
      this.#session = undefined;
      this.#fetch(this.#url, { method: "DELETE", headers }).catch(() => {});
    }
  }

  #requestHeaders(accept) {
    const headers = { ...this.#headers, accept };
    if (this.#session !== undefined) headers["mcp-session-id"] = this.#session;
    if (this.#mcp && this.#protocolVersion !== undefined) headers["mcp-protocol-version"] = this.#protocolVersion;
    return headers;
  }

  async #post(body, calls) {
    const headers = { ...this.#requestHeaders("application/json, text/event-stream"), "content-type": "application/json" };
    const withSession = this.#session;
    try {
      await this.#exchange(headers, { method: "POST", body }, (response) => this.#replied(response, calls, withSession));
    } catch (error) {
      if (this.destroyed) return;
      if (calls.length === 0) this.emit("error", { error });
      this.#fail(calls, "failed", "The HTTP request failed", { error: String(error?.message ?? error) });
    }
  }

  /** What the reply to a POST says, for the calls it carried. */
  async #replied(response, calls, withSession) {
    // MCP: the session the server gives, on its reply to `initialize`
    // (the first request of a session, as the lifecycle requires).
    if (this.#mcp && this.#session === undefined) {
      const session = response.headers.get("mcp-session-id");
      if (session) this.#session = session;
    }
    if (response.status === 404 && withSession !== undefined && this.#mcp) {
      await drain(response);
      this.#sessionExpired(withSession);
      return;
    }
    const type = response.headers.get("content-type") ?? "";
    if (!response.ok) {
      const text = await drain(response);
      const data = { status: response.status, body: text };
      if (calls.length === 0) this.emit("error", { error: new Error(`HTTP ${response.status}`), ...data });
      // The body may still hold JSON-RPC error responses to these very calls: the endpoint reads it.
      this.#fail(calls, "failed", `HTTP ${response.status} ${response.statusText}`.trim(), data, parsed(text));
      return;
    }
    if (type.includes("text/event-stream")) {
      await this.#readStream(response, calls, 0);
    } else if (response.status === 202 || response.status === 204 || calls.length === 0) {
      await drain(response);
    } else if (!this.#deliverText(await drain(response), calls)) {
      return;
    }
    this.#fail(calls, "failed", "The server's reply had no response to this call", { status: response.status });
    // MCP: the first message accepted without calls after `initialize` is
    // `notifications/initialized` (the lifecycle's order): from then on the
    // server may send on a GET stream of its own.
    if (this.#mcp && calls.length === 0 && this.#initialized) this.#openListening();
  }

  /**
   * One HTTP exchange, request and whole reply (`use` reads it), that
   * `destroy()` can abort at any point, a long SSE body included. Resolves
   * with what `use` returns, or undefined once destroyed.
   */
  async #exchange(headers, init, use) {
    const controller = new AbortController();
    this.#inflight.add(controller);
    try {
      const response = await this.#fetch(this.#url, { ...init, headers, signal: controller.signal });
      return await use(response);
    } catch (error) {
      if (this.destroyed) return undefined;
      throw error;
    } finally {
      this.#inflight.delete(controller);
    }
  }

  /**
   * Reads an SSE stream: each event's data is a message. A stream that
   * drops before the calls it carries are answered is resumed with a GET
   * carrying `Last-Event-ID`, after the server's `retry` delay; after
   * `maxResumes` attempts, or without an event id, those calls fail.
   */
  async #readStream(response, calls, attempt, stream = { lastEventId: undefined, retry: DEFAULT_RETRY_MS }) {
    let dropped = false;
    try {
      await readEvents(response.body, stream, (data) => this.#deliverText(data, [], true));
    } catch {
      if (this.destroyed) return;
      dropped = true;
    }
    const open = this.#unanswered(calls);
    if (open.length === 0 || this.destroyed) return;
    if (stream.lastEventId === undefined || attempt >= this.#maxResumes) {
      this.#fail(open, "failed", dropped ? "The server's stream dropped" : "The server's stream ended before the response");
      return;
    }
    await this.#resume(open, stream, attempt + 1);
  }

  async #resume(calls, stream, attempt) {
    this.emit("reconnecting", { attempt, delay: stream.retry });
    await new Promise((wake) => setTimeout(wake, stream.retry));
    if (this.destroyed) return;
    const headers = { ...this.#requestHeaders("text/event-stream"), "last-event-id": stream.lastEventId };
    try {
      await this.#exchange(headers, { method: "GET" }, async (response) => {
        if (!isEventStream(response)) {
          await drain(response);
          this.#fail(calls, "failed", `The server's stream could not be resumed (HTTP ${response.status})`, {
            status: response.status,
          });
          return;
        }
        this.emit("reconnected", { attempt });
        await this.#readStream(response, calls, attempt, stream);
      });
    } catch {
      if (attempt >= this.#maxResumes) this.#fail(calls, "failed", "The server's stream could not be resumed");
      else await this.#resume(calls, stream, attempt + 1);
    }
  }

  /**
   * The GET stream for messages the server starts (a 405 means it offers
   * none). When it drops while the session lives, it is reopened after the
   * server's `retry` (with `Last-Event-ID` once an event had one, so the
   * server replays what was missed), up to `maxResumes` attempts in a row.
   */
  async #openListening() {
    if (!this.#listen || this.#listening || this.destroyed) {
      this.#listenSettled();
      return;
    }
    this.#listening = true;
    const stream = { lastEventId: undefined, retry: DEFAULT_RETRY_MS };
    for (let attempt = 0; ; attempt++) {
      const headers = this.#requestHeaders("text/event-stream");
      if (stream.lastEventId !== undefined) headers["last-event-id"] = stream.lastEventId;
      let outcome;
      try {
        outcome = await this.#exchange(headers, { method: "GET" }, async (response) => {
          this.#listenSettled();
          if (!isEventStream(response)) {
            await drain(response);
            return "none";
          }
          if (attempt > 0) this.emit("reconnected", { attempt });
          await readEvents(response.body, stream, (data) => this.#deliverText(data, [], true)).catch(() => {});
          return "ended";
        });
      } catch {
        outcome = "failed";
      } finally {
        this.#listenSettled();
      }
      // Destroyed, or the server offers no stream.
      if (outcome === undefined || outcome === "none") break;
      if (outcome === "ended") attempt = 0;
      // Reopened even without an event id: what the server sends from then on still arrives.
      if (this.destroyed || this.#session === undefined || attempt >= this.#maxResumes) break;
      this.emit("reconnecting", { attempt: attempt + 1, delay: stream.retry });
      await new Promise((wake) => setTimeout(wake, stream.retry));
      if (this.destroyed) break;
    }
    this.#listening = false;
  }

  /**
   * Delivers a body or an event's data: one message or an array. Text that
   * is not JSON fails `calls` with a parse error (or, from a stream, is
   * reported). Returns whether it was JSON.
   */
  #deliverText(text, calls, fromStream = false) {
    let value;
    try {
      value = JSON.parse(text);
    } catch {
      if (fromStream) this.emit("error", { error: new Error("An SSE event's data is not JSON"), body: text });
      else this.#fail(calls, "not-json", "Parse error", { body: text });
      return false;
    }
    for (const message of Array.isArray(value) ? value : [value]) this.#received(message);
    return true;
  }

  #received(message) {
    // MCP: the revision the server chose, from its answer to `initialize`
    // (the first answer of a session, as the lifecycle requires).
    const version = message?.result?.protocolVersion;
    if (this.#mcp && !this.#initialized && typeof version === "string") {
      this.#initialized = true;
      this.#protocolVersion ??= version;
    }
    this.deliver(message);
  }

  #unanswered(calls) {
    return calls.filter((id) => this.#pending.has(id));
  }

  /**
   * Reports `calls` (those not ended yet) as undelivered: `reason` is
   * `"failed"`, `"not-json"` or `"session-expired"`; `reply`, what an error
   * status's body held. The endpoint decides what each call gets.
   */
  #fail(calls, reason, message, data, reply) {
    const open = this.#unanswered(calls);
    if (open.length > 0) this.emit("undelivered", { calls: open, reply, reason, message, data });
  }

  /** A 404 to a request that carried the session: the server no longer knows it. */
  #sessionExpired(sessionId) {
    if (this.#session === sessionId) {
      this.#session = undefined;
      this.#protocolVersion = undefined;
      this.#initialized = false;
    }
    this.#fail([...this.#pending], "session-expired", "The MCP session expired: initialize again", { sessionId });
    this.emit("sessionexpired", { sessionId });
  }
}

/**
 * JSON-RPC over HTTP: each message a POST to `url`. Options: `mcp` (MCP's
 * Streamable HTTP), `headers` (for example authorization), `fetch`,
 * `timeout` (the default per-call timeout, 60 s), `maxResumes` (attempts to
 * resume a dropped stream, 5), `listen` (MCP: open the GET stream for
 * server-initiated messages, default true), `protocolVersion`.
 */
export function httpTransport(url, options) {
  return new HttpTransport(url, options);
}

/**
 * Opens an MCP session on a Peer whose transport speaks MCP (an
 * `httpTransport` with `mcp: true`, or a wrapper of one): `initialize`
 * (refused unless the server answers with a revision we speak),
 * `notifications/initialized`, `ping` answered; resolves with the server's
 * initialize result, also kept as `peer.server`, once the session's GET
 * stream is open (or known not to be offered).
 */
export async function initializeMcp(peer, options = {}) {
  const { clientInfo = { name: "wiggum-rpc", version: "0.1.0" }, capabilities = {}, protocolVersion = MCP_PROTOCOL_VERSIONS[0] } =
    options;
  peer.method("ping", () => ({}));
  const server = await peer.request("initialize", { protocolVersion, capabilities, clientInfo });
  if (!MCP_PROTOCOL_VERSIONS.includes(server?.protocolVersion)) {
    throw new RPCError(
      ErrorCode.MCP_SERVER_ERROR,
      `The server speaks MCP ${server?.protocolVersion}, not one of ${MCP_PROTOCOL_VERSIONS.join(", ")}`,
      server,
    );
  }
  peer.server = server;
  peer.notify("notifications/initialized");
  await options.transport?.listened;
  return server;
}

/** The transports `connectMcp` speaks, by the name its `transport` option takes. */
const TRANSPORTS = ["streamable-http", "sse"];

/**
 * An MCP client session: a Peer on an MCP transport, and `initializeMcp`;
 * returns the Peer, with the server's initialize result as `peer.server` and
 * the transport's name as `peer.transport`. By default Streamable HTTP, and,
 * when its POST of `initialize` gets a 4xx (a server of the older protocol),
 * HTTP+SSE at the same URL, as MCP's backwards compatibility rules say; the
 * `transport` option names one to use alone. Options: `clientInfo`,
 * `capabilities`, `protocolVersion`, `peer` (the Peer's options), and the
 * transports' (`headers`, `fetch`, `timeout`, …).
 */
export async function connectMcp(url, options = {}) {
  const { transport, clientInfo, capabilities, protocolVersion, peer: peerOptions, ...transportOptions } = options;
  if (transport !== undefined && !TRANSPORTS.includes(transport)) {
    throw new TypeError(`connectMcp: transport is one of ${TRANSPORTS.join(", ")}, not ${transport}`);
  }
  const open = async (made, name) => {
    const peer = new Peer(made, peerOptions);
    try {
      await initializeMcp(peer, { clientInfo, capabilities, protocolVersion, transport: made });
      peer.transport = name;
      return peer;
    } catch (error) {
      peer.destroy();
      // The stream's end says why better than the endpoint's "Connection closed".
      const closed = made.closed;
      if (error?.code === ErrorCode.CONNECTION_CLOSED && closed !== undefined) {
        throw new RPCError(error.code, `Connection closed: ${closed.reason}`, closed);
      }
      throw error;
    }
  };
  if (transport === "sse") return open(sseTransport(url, transportOptions), "sse");
  const streamable = httpTransport(url, { ...transportOptions, mcp: true });
  // The status of the POST that carried `initialize`, if it failed.
  let refused;
  const stopWatching = streamable.on("undelivered", ({ data }) => (refused = data?.status));
  try {
    return await open(streamable, "streamable-http");
  } catch (error) {
    if (transport !== undefined || !(refused >= 400 && refused < 500)) throw error;
    const legacy = sseTransport(url, transportOptions);
    try {
      return await open(legacy, "sse");
    } catch (legacyError) {
      // No stream named an endpoint: not an HTTP+SSE server either, and the first refusal says more.
      throw legacy.endpoint === undefined ? error : legacyError;
    }
  } finally {
    stopWatching();
  }
}
