// An MCP server built with the official TypeScript SDK (@modelcontextprotocol/sdk)
// over its Streamable HTTP transport, with sessions and an event store for
// resumability, and over its HTTP+SSE transport (2024-11-05), on 127.0.0.1.
// The tests start and stop it. `/mcp` serves both (a GET without a session
// opens an HTTP+SSE stream there); `/sse` is a server of the older protocol
// alone: its GET opens the stream, whose endpoint is `/messages`, and a POST
// to it is refused (405), as a Streamable HTTP client's is.
//
// Tools: `add` {a, b}; `count` {n} (a progress notification per step);
// `ask` and `askAside` (ask the client through elicitation, on the call's
// stream and on the session's GET stream); `askBriefly` (gives up on its
// own request after 100 ms); `cut` (closes its SSE stream mid-call, then
// answers: the client must resume); `notifyAside` and `cutAside` (a
// notification on the session's GET stream; closing that stream, then a
// notification while the client is away); `hang` (waits until cancelled; `cancelled`
// says whether it was); `fail` (a tool error). `POST /expire` forgets every
// session (and ends every HTTP+SSE stream), so the next request that names
// one gets the SDK's 404; `/broken` answers a 500 page and `/not-json` a
// body that is not JSON. `mounts` serves files, so a browser can call the
// server from its own origin.
import { readFile } from "node:fs/promises";
import { createServer } from "node:http";
import { join } from "node:path";
import { once } from "node:events";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { mcpSessions } from "../../scripts/demo-mcp.mjs";
import { z } from "zod";

const TYPES = { ".html": "text/html", ".js": "text/javascript", ".wasm": "application/wasm", ".mjs": "text/javascript" };

/**
 * The SDK's `EventStore` interface, kept in memory. (The SDK's example
 * store reads an event's stream back from the event id's text before its
 * first `_`, which is empty for the standalone stream `_GET_stream`, so it
 * never replays that stream; this one records the stream with each event.)
 */
class EventStore {
  #events = [];

  async storeEvent(streamId, message) {
    this.#events.push({ streamId, message });
    return String(this.#events.length);
  }

  async getStreamIdForEventId(eventId) {
    return this.#events[Number(eventId) - 1]?.streamId;
  }

  async replayEventsAfter(lastEventId, { send }) {
    const after = Number(lastEventId);
    const streamId = this.#events[after - 1]?.streamId;
    if (streamId === undefined) return "";
    for (let at = after; at < this.#events.length; at++) {
      const event = this.#events[at];
      if (event.streamId === streamId) await send(String(at + 1), event.message);
    }
    return streamId;
  }
}

function mcpServer(state) {
  const server = new McpServer({ name: "wiggum-test-server", version: "1.0.0" });
  server.registerTool("add", { inputSchema: { a: z.number(), b: z.number() } }, async ({ a, b }) => ({
    content: [{ type: "text", text: String(a + b) }],
  }));
  server.registerTool("count", { inputSchema: { n: z.number() } }, async ({ n }, extra) => {
    const token = extra._meta?.progressToken;
    for (let step = 1; step <= n; step++) {
      if (token !== undefined) {
        await extra.sendNotification({ method: "notifications/progress", params: { progressToken: token, progress: step, total: n } });
      }
      await new Promise((wake) => setTimeout(wake, 10));
    }
    return { content: [{ type: "text", text: `counted to ${n}` }] };
  });
  // `ask` sends its elicitation on the call's own SSE stream (related to
  // the call); `askAside` on the session's GET stream.
  for (const [name, related] of [
    ["ask", true],
    ["askAside", false],
  ]) {
    server.registerTool(name, {}, async (extra) => {
      const answer = await server.server.elicitInput(
        {
          mode: "form",
          message: "Your name?",
          requestedSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] },
        },
        related ? { relatedRequestId: extra.requestId } : undefined,
      );
      return { content: [{ type: "text", text: `${answer.action}: ${answer.content?.name}` }] };
    });
  }
  // A tool without an input schema gets `extra` as its only argument.
  // `askBriefly` gives the client 100 ms, then cancels its request
  // (`notifications/cancelled`) and says how it ended.
  server.registerTool("askBriefly", {}, async (extra) => {
    const outcome = await server.server
      .elicitInput(
        { mode: "form", message: "Quick?", requestedSchema: { type: "object", properties: {} } },
        { relatedRequestId: extra.requestId, timeout: 100 },
      )
      .then(
        () => "answered",
        (error) => `gave up: ${error.message}`,
      );
    return { content: [{ type: "text", text: outcome }] };
  });
  server.registerTool("cut", {}, async (extra) => {
    const token = extra._meta?.progressToken;
    if (token !== undefined) {
      await extra.sendNotification({ method: "notifications/progress", params: { progressToken: token, progress: 1 } });
    }
    state.cutAvailable = typeof extra.closeSSEStream === "function";
    extra.closeSSEStream?.();
    await new Promise((wake) => setTimeout(wake, 200));
    return { content: [{ type: "text", text: "answered after the cut" }] };
  });
  // `notifyAside` tells the client on the session's GET stream that the tool
  // list changed; `cutAside` closes that stream, and tells it again 200 ms
  // later, while the client is away (the event store keeps it for replay).
  server.registerTool("notifyAside", {}, async () => {
    await server.sendToolListChanged();
    return { content: [{ type: "text", text: "notified" }] };
  });
  server.registerTool("cutAside", {}, async (extra) => {
    state.cutAsideAvailable = typeof extra.closeStandaloneSSEStream === "function";
    extra.closeStandaloneSSEStream?.();
    setTimeout(() => server.sendToolListChanged(), 200);
    return { content: [{ type: "text", text: "cut" }] };
  });
  server.registerTool("hang", {}, async (extra) => {
    state.cancelled = false;
    await new Promise((wake) => extra.signal.addEventListener("abort", wake, { once: true }));
    state.cancelled = true;
    return { content: [{ type: "text", text: "too late" }] };
  });
  server.registerTool("fail", {}, async () => {
    throw new Error("the tool failed");
  });
  return server;
}

/** Starts the server; `pages` is a folder served under /page/, `mounts` more [prefix, dir] pairs. */
export async function startTsMcpServer({ mounts = [] } = {}) {
  const state = { cancelled: undefined, cutAvailable: undefined, deleted: [], requests: [] };
  const sessions = mcpSessions(
    () => mcpServer(state),
    () => ({ eventStore: new EventStore(), retryInterval: 50 }),
  );
  const http = createServer(async (req, res) => {
    const url = new URL(req.url, "http://127.0.0.1");
    for (const [prefix, dir] of mounts) {
      if (req.method === "GET" && url.pathname.startsWith(prefix)) {
        const path = join(dir, url.pathname.slice(prefix.length));
        try {
          const body = await readFile(path);
          res.writeHead(200, { "content-type": TYPES[path.slice(path.lastIndexOf("."))] ?? "application/octet-stream" });
          res.end(body);
        } catch {
          res.writeHead(404).end();
        }
        return;
      }
    }
    if (url.pathname === "/expire" && req.method === "POST") {
      await sessions.close();
      res.writeHead(204).end();
      return;
    }
    if (url.pathname === "/broken") {
      res.writeHead(500, { "content-type": "text/html" }).end("<h1>Internal Server Error</h1>");
      return;
    }
    if (url.pathname === "/not-json") {
      res.writeHead(200, { "content-type": "application/json" }).end("this is not json");
      return;
    }
    if (!["/mcp", "/sse", "/messages"].includes(url.pathname)) {
      res.writeHead(404).end();
      return;
    }
    // The body is read here (and handed on parsed) to record whether it was a batch.
    let body;
    if (req.method === "POST") {
      let text = "";
      for await (const chunk of req) text += chunk;
      body = JSON.parse(text);
    }
    const sessionId = req.headers["mcp-session-id"];
    const record = {
      method: req.method,
      path: url.pathname,
      legacySession: url.searchParams.get("sessionId") ?? undefined,
      accept: req.headers.accept,
      contentType: req.headers["content-type"],
      sessionId,
      protocolVersion: req.headers["mcp-protocol-version"],
      lastEventId: req.headers["last-event-id"],
      authorization: req.headers.authorization,
      batch: Array.isArray(body),
      rpcMethod: body?.method,
    };
    state.requests.push(record);
    res.on("finish", () => (record.status = res.statusCode));
    if (req.method === "DELETE" && sessionId) state.deleted.push(sessionId);
    if (url.pathname === "/mcp") await sessions(req, res, body);
    else if (url.pathname === "/messages") await sessions.legacy(req, res, body);
    else if (req.method === "GET") await sessions.legacy(req, res, body, "/messages");
    else res.writeHead(405, { allow: "GET" }).end("Method Not Allowed");
  });
  http.listen(0, "127.0.0.1");
  await once(http, "listening");
  const origin = `http://127.0.0.1:${http.address().port}`;
  return {
    origin,
    url: `${origin}/mcp`,
    state,
    sessions: sessions.sessions,
    streams: sessions.streams,
    async close() {
      await sessions.close();
      http.closeAllConnections();
      http.close();
      await once(http, "close");
    },
  };
}
