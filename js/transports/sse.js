// MCP's older HTTP+SSE transport (2024-11-05), part of the package's
// `wiggum-rpc/http` entry (http.js re-exports it): a GET opens one event
// stream for the whole session; its first `endpoint` event names the URL
// (same origin) to POST each message to, and every answer and server message
// comes on that stream. When the stream ends or breaks, the session is over:
// the calls in flight fail with `CONNECTION_CLOSED`, and nothing reconnects
// (a new GET would be a new session, with the old one's answers lost).

import { Transport } from "./wiggum_rpc.js";
import { drain, isEventStream, parsed, readEvents } from "./event-stream.js";

/**
 * MCP's HTTP+SSE transport (2024-11-05). The stream is opened at once; what
 * is sent before its `endpoint` event waits for it.
 */
class SseTransport extends Transport {
  /** Outgoing messages are JSON text: each is a POST body as it is. */
  text = true;
  defaultTimeout;
  /** MCP's cancellation, no batches (read by the endpoint). */
  dialect = "mcp";
  /** The stream's URL; the endpoint must be of its origin. */
  #url;
  #fetch;
  #headers;
  /** Where messages are POSTed: the `endpoint` event's URL, once it came. */
  #endpoint;
  /** Messages sent before the endpoint was known: [body, calls]. */
  #outbox = [];
  /** The ids of the calls posted that have not ended yet. */
  #pending = new Set();
  /** Every POST in flight, aborted by `destroy()`. */
  #inflight = new Set();
  /** Aborts the stream's GET. */
  #stream = new AbortController();
  #protocolVersion;
  #initialized = false;
  /** The `close` event's detail, once the stream has ended. */
  #closed;
  /** Why the stream was given up while it still ran (an endpoint of another origin). */
  #refusal;
  #listenSettled;
  /** Resolves once the stream has named its endpoint, or has ended (`initializeMcp` waits for it). */
  listened = new Promise((settle) => (this.#listenSettled = settle));

  constructor(url, options = {}) {
    super();
    if (typeof url !== "string" && !(url instanceof URL)) throw new TypeError("sseTransport: pass the server's SSE URL");
    try {
      // A page may name it relative to itself, as it would to fetch.
      this.#url = new URL(String(url), globalThis.location?.href);
    } catch {
      throw new TypeError(`sseTransport: not an absolute URL: ${url}`);
    }
    this.#fetch = options.fetch ?? globalThis.fetch?.bind(globalThis);
    if (typeof this.#fetch !== "function") throw new TypeError("sseTransport: no global fetch here; pass { fetch }");
    this.#headers = { ...(options.headers ?? {}) };
    this.defaultTimeout = options.timeout ?? 60_000;
    this.#protocolVersion = options.protocolVersion;
    this.#open();
  }

  /** The URL messages are POSTed to, once the stream named it. */
  get endpoint() {
    return this.#endpoint;
  }

  /** The `close` event's detail once the stream has ended (`{ code, reason, final, status? }`), else undefined. */
  get closed() {
    return this.#closed;
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
   * POSTs one message to the endpoint (or keeps it until the stream names
   * the endpoint); its answer comes on the stream. After the stream ended,
   * throws: the session is over.
   */
  send(message, _transfer, calls = []) {
    if (this.destroyed) throw new Error("transport destroyed");
    if (this.#closed !== undefined) throw new Error(`The MCP server's SSE stream has ended: ${this.#closed.reason}`);
    const body = typeof message === "string" ? message : JSON.stringify(message);
    for (const id of calls) this.#pending.add(id);
    if (this.#endpoint === undefined) this.#outbox.push([body, calls]);
    else this.#post(body, calls);
  }

  /** The endpoint says call `id` has ended (see `HttpTransport.settled`). */
  settled(id) {
    this.#pending.delete(id);
  }

  /** Closes the stream and aborts the POSTs in flight; the server sees the session end. */
  release() {
    this.#stream.abort();
    for (const controller of this.#inflight) controller.abort();
    this.#inflight.clear();
    this.#pending.clear();
    this.#outbox = [];
    this.#listenSettled();
  }

  #requestHeaders() {
    const headers = { ...this.#headers };
    if (this.#protocolVersion !== undefined) headers["mcp-protocol-version"] = this.#protocolVersion;
    return headers;
  }

  /** The session's one GET: read to its end, then the session is over. */
  async #open() {
    const headers = { ...this.#requestHeaders(), accept: "text/event-stream" };
    let ended;
    try {
      const response = await this.#fetch(this.#url.href, { method: "GET", headers, signal: this.#stream.signal });
      if (!isEventStream(response)) {
        const body = await drain(response);
        const reason = `The server opened no SSE stream (HTTP ${response.status})`;
        ended = { code: 1006, reason, status: response.status, body };
      } else {
        await readEvents(response.body, {}, (data, type) => this.#event(data, type));
        ended = { code: 1001, reason: "The server's SSE stream ended" };
      }
    } catch (error) {
      if (this.destroyed) return;
      const reason = this.#refusal ?? `The server's SSE stream failed: ${error?.message ?? error}`;
      ended = { code: 1006, reason };
    }
    this.#end(ended);
  }

  /** One event of the stream: the endpoint, or a message. */
  #event(data, type) {
    if (type === "endpoint") {
      let endpoint;
      try {
        endpoint = new URL(data.trim(), this.#url);
      } catch {
        this.#refusal = `The server's endpoint is not a URL: ${data}`;
        throw new Error(this.#refusal);
      }
      // The SDK's rule: messages go to the stream's own origin only.
      if (endpoint.origin !== this.#url.origin) {
        this.#refusal = `The server's endpoint ${endpoint.origin} is not of the stream's origin ${this.#url.origin}`;
        throw new Error(this.#refusal);
      }
      const first = this.#endpoint === undefined;
      this.#endpoint = endpoint.href;
      if (!first) return;
      this.emit("open", {});
      this.#listenSettled();
      const outbox = this.#outbox;
      this.#outbox = [];
      for (const [body, calls] of outbox) this.#post(body, calls);
      return;
    }
    if (type !== "message") return;
    let value;
    try {
      value = JSON.parse(data);
    } catch {
      this.emit("error", { error: new Error("An SSE event's data is not JSON"), body: data });
      return;
    }
    for (const message of Array.isArray(value) ? value : [value]) {
      // MCP: the revision the server chose, from its answer to `initialize`.
      const version = message?.result?.protocolVersion;
      if (!this.#initialized && typeof version === "string") {
        this.#initialized = true;
        this.#protocolVersion ??= version;
      }
      this.deliver(message);
    }
  }

  /** The stream is over: so is the session; its calls fail with `CONNECTION_CLOSED` (the endpoint's rule on `close`). */
  #end(detail) {
    if (this.destroyed || this.#closed !== undefined) return;
    this.#closed = { ...detail, final: true };
    this.#stream.abort();
    this.#outbox = [];
    this.#listenSettled();
    this.emit("close", this.#closed);
  }

  /** One message, POSTed; a 2xx (the SDK's server says 202 Accepted) means its answer will come on the stream. */
  async #post(body, calls) {
    const controller = new AbortController();
    this.#inflight.add(controller);
    const headers = { ...this.#requestHeaders(), "content-type": "application/json" };
    try {
      const response = await this.#fetch(this.#endpoint, { method: "POST", headers, body, signal: controller.signal });
      const text = await drain(response);
      if (response.ok || this.destroyed) return;
      const data = { status: response.status, body: text };
      if (calls.length === 0) this.emit("error", { error: new Error(`HTTP ${response.status}`), ...data });
      this.#fail(calls, `HTTP ${response.status} ${response.statusText}`.trim(), data, parsed(text));
    } catch (error) {
      if (this.destroyed) return;
      if (calls.length === 0) this.emit("error", { error });
      this.#fail(calls, "The HTTP request failed", { error: String(error?.message ?? error) });
    } finally {
      this.#inflight.delete(controller);
    }
  }

  /** Reports the calls a refused POST carried (those not ended yet) as undelivered. */
  #fail(calls, message, data, reply) {
    const open = calls.filter((id) => this.#pending.has(id));
    if (open.length > 0) this.emit("undelivered", { calls: open, reply, reason: "failed", message, data });
  }
}

/**
 * MCP's HTTP+SSE transport (2024-11-05) to the stream at `url` (a GET,
 * opened at once). Options: `headers` (on the GET and every POST), `fetch`,
 * `timeout` (the default per-call timeout, 60 s), `protocolVersion`.
 */
export function sseTransport(url, options) {
  return new SseTransport(url, options);
}
