// The demo's MCP server: the fifth boundary, MCP client ↔ server, served at
// `/mcp` beside the demo page by scripts/serve.mjs. Built with the official
// MCP TypeScript SDK, one session per client (`mcpSessions`, which the MCP
// tests' server uses too), over either transport at that one URL: Streamable
// HTTP, and the older HTTP+SSE (2024-11-05), as MCP's backwards
// compatibility rules let a server host both.
//
// Tools: `list_routes` (the preview's routes), `build_site` {pages} (a
// progress notification per page, then a summary).
import { randomUUID } from "node:crypto";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { SSEServerTransport } from "@modelcontextprotocol/sdk/server/sse.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { z } from "zod";

function demoServer() {
  const server = new McpServer({ name: "wiggum-demo-tools", version: "1.0.0" });
  server.registerTool("list_routes", { description: "The preview's routes" }, async () => ({
    content: [{ type: "text", text: ["/", "/about", "/docs"].join(" ") }],
  }));
  server.registerTool(
    "build_site",
    { description: "Builds the site, one page at a time", inputSchema: { pages: z.number().int().min(1).max(20) } },
    async ({ pages }, extra) => {
      const token = extra._meta?.progressToken;
      for (let page = 1; page <= pages; page++) {
        await new Promise((wake) => setTimeout(wake, 120));
        if (token !== undefined) {
          await extra.sendNotification({
            method: "notifications/progress",
            params: { progressToken: token, progress: page, total: pages, message: `page ${page} of ${pages}` },
          });
        }
      }
      return { content: [{ type: "text", text: `built ${pages} pages` }] };
    },
  );
  return server;
}

const notFound = (response) => {
  response.writeHead(404, { "content-type": "application/json" });
  response.end(JSON.stringify({ jsonrpc: "2.0", error: { code: -32001, message: "Session not found" }, id: null }));
};

/**
 * A request handler for an MCP endpoint with sessions, over both
 * transports. Streamable HTTP: a POST without a session starts one (a
 * Streamable HTTP transport with the options `sessionOptions()` gives,
 * connected to a fresh `makeServer()`); a request that names one goes to
 * its transport; one that names an unknown session gets 404. HTTP+SSE: a GET
 * that names no session opens one (`handle.legacy`). `handle.sessions()`
 * lists the Streamable HTTP sessions, `handle.streams()` the HTTP+SSE ones,
 * `handle.close()` ends them all.
 */
export function mcpSessions(makeServer, sessionOptions = () => ({})) {
  const sessions = new Map();
  const streams = new Map();
  const handle = async (request, response, parsedBody) => {
    const id = request.headers["mcp-session-id"];
    const legacyPost = new URL(request.url, "http://localhost").searchParams.has("sessionId");
    if (!id && (request.method === "GET" || legacyPost)) return handle.legacy(request, response, parsedBody);
    let transport = id ? sessions.get(id) : undefined;
    if (!transport) {
      if (id || request.method !== "POST") return notFound(response);
      transport = new StreamableHTTPServerTransport({
        ...sessionOptions(),
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (session) => sessions.set(session, transport),
      });
      transport.onclose = () => transport.sessionId && sessions.delete(transport.sessionId);
      await makeServer().connect(transport);
    }
    await transport.handleRequest(request, response, parsedBody);
  };
  /**
   * HTTP+SSE (2024-11-05): a GET opens a session's stream, whose `endpoint`
   * event names `endpoint` (by default the request's own path) with
   * `?sessionId=`; a POST there is one message of that session, answered
   * 202 (its answer goes on the stream). The session ends with its stream.
   */
  handle.legacy = async (request, response, parsedBody, endpoint) => {
    const url = new URL(request.url, "http://localhost");
    if (request.method === "GET") {
      const transport = new SSEServerTransport(endpoint ?? url.pathname, response, sessionOptions());
      streams.set(transport.sessionId, transport);
      transport.onclose = () => streams.delete(transport.sessionId);
      await makeServer().connect(transport);
      return;
    }
    const transport = streams.get(url.searchParams.get("sessionId"));
    if (request.method !== "POST") response.writeHead(405, { allow: "GET, POST" }).end();
    else if (!transport) notFound(response);
    else await transport.handlePostMessage(request, response, parsedBody);
  };
  handle.sessions = () => [...sessions.keys()];
  handle.streams = () => [...streams.keys()];
  handle.close = async () => {
    for (const transport of [...sessions.values(), ...streams.values()]) await transport.close().catch(() => {});
    sessions.clear();
    streams.clear();
  };
  return handle;
}

/**
 * The demo's `/mcp`, with its SDK's DNS-rebinding protection on: only the
 * loopback names of the port it is served on (`address()`, the HTTP
 * server's), and pages of those origins, are let in.
 */
export function demoMcpHandler(address) {
  return mcpSessions(demoServer, () => {
    const hosts = ["127.0.0.1", "localhost", "[::1]"].map((name) => `${name}:${address().port}`);
    return {
      enableDnsRebindingProtection: true,
      allowedHosts: hosts,
      allowedOrigins: hosts.map((host) => `http://${host}`),
    };
  });
}
