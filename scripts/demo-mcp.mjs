// The demo's MCP server: the fifth boundary, MCP client ↔ server, served at
// `/mcp` beside the demo page by scripts/serve.mjs. Built with the official
// MCP TypeScript SDK over Streamable HTTP, one session per client
// (`mcpSessions`, which the MCP tests' server uses too).
//
// Tools: `list_routes` (the preview's routes), `build_site` {pages} (a
// progress notification per page, then a summary).
import { randomUUID } from "node:crypto";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
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

/**
 * A request handler for an MCP endpoint with sessions: a POST without a
 * session starts one (a Streamable HTTP transport with the options
 * `sessionOptions()` gives, connected to a fresh `makeServer()`); a request that
 * names one goes to its transport; one that names an unknown session gets
 * 404. `handle.sessions()` lists them, `handle.close()` ends them all.
 */
export function mcpSessions(makeServer, sessionOptions = () => ({})) {
  const sessions = new Map();
  const handle = async (request, response, parsedBody) => {
    const id = request.headers["mcp-session-id"];
    let transport = id ? sessions.get(id) : undefined;
    if (!transport) {
      if (id || request.method !== "POST") {
        response.writeHead(404, { "content-type": "application/json" });
        response.end(JSON.stringify({ jsonrpc: "2.0", error: { code: -32001, message: "Session not found" }, id: null }));
        return;
      }
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
  handle.sessions = () => [...sessions.keys()];
  handle.close = async () => {
    for (const transport of sessions.values()) await transport.close().catch(() => {});
    sessions.clear();
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
