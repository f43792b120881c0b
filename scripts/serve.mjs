// A small static server for the demo, the benchmark page and the browser
// tests: www/ at `/`, the web build of the package at `/pkg/`, bench/ at
// `/bench/`; with `mcp: true` (the demo), the demo's MCP server at `/mcp`
// (demo-mcp.mjs) and its WebSocket hub at `/ws` (demo-hub.mjs: two hub processes on Redis behind a round-robin proxy). Loopback only. Run directly, it serves the demo until
// stopped.
import { createServer } from "node:http";
import { readFile, stat } from "node:fs/promises";
import { extname, join, normalize, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(fileURLToPath(new URL("..", import.meta.url)));
const defaultMounts = [
  ["/pkg/", join(root, "pkg-web")],
  ["/bench/", join(root, "bench")],
  ["/", join(root, "www")],
];
const types = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json",
  ".wasm": "application/wasm",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ts": "text/plain; charset=utf-8",
};

async function resolvePath(mounts, urlPath) {
  for (const [prefix, dir] of mounts) {
    if (!urlPath.startsWith(prefix)) continue;
    const relative = normalize(decodeURIComponent(urlPath.slice(prefix.length)));
    if (relative.startsWith("..")) return null;
    let file = join(dir, relative);
    const info = await stat(file).catch(() => null);
    if (info?.isDirectory()) file = join(file, "index.html");
    return file;
  }
  return null;
}

/**
 * Serves `mounts` ([url prefix, directory] pairs, first match wins), and
 * `/mcp` and `/ws` with `mcp: true`. Nothing is cached unless `cache` (the
 * benchmark's cold start from the HTTP cache).
 */
export async function startServer({ port = 0, host = "127.0.0.1", mounts = defaultMounts, mcp = false, cache = false } = {}) {
  // Loaded only when asked for: the MCP SDK is a development dependency.
  const mcpHandler = mcp ? (await import("./demo-mcp.mjs")).demoMcpHandler(() => server.address()) : undefined;
  const hub = mcp ? await (await import("./demo-hub.mjs")).demoHub() : undefined;
  const server = createServer(async (request, response) => {
    const { pathname: path, searchParams } = new URL(request.url, "http://localhost");
    // `?delay=ms` holds the response that long (a test's slow network).
    const delay = Number(searchParams.get("delay"));
    if (delay > 0) await new Promise((resolve) => setTimeout(resolve, Math.min(delay, 10_000)));
    if (mcpHandler && path === "/mcp") {
      await mcpHandler(request, response);
      return;
    }
    const file = await resolvePath(mounts, path);
    const body = file && (await readFile(file).catch(() => null));
    if (!body) {
      response.writeHead(404, { "content-type": "text/plain" }).end(`not found: ${path}\n`);
      return;
    }
    const headers = {
      "content-type": types[extname(file)] ?? "application/octet-stream",
      "cache-control": cache ? "max-age=3600" : "no-store",
      // A sandboxed frame's origin is opaque: its module scripts and .wasm are cross-origin fetches.
      "access-control-allow-origin": "*",
    };
    // `?csp=policy`: served under that Content-Security-Policy (a test's strict page or worker).
    const csp = searchParams.get("csp");
    if (csp) headers["content-security-policy"] = csp;
    response.writeHead(200, headers);
    response.end(body);
  });
  server.on("upgrade", (request, socket, head) => {
    if (hub && new URL(request.url, "http://localhost").pathname === "/ws") hub.upgrade(request, socket, head);
    else socket.destroy();
  });
  return new Promise((resolveStart, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      const { port: actual } = server.address();
      resolveStart({
        url: `http://${host}:${actual}/`,
        close: async () => {
          await mcpHandler?.close();
          await hub?.close();
          server.closeAllConnections();
          await new Promise((done) => server.close(done));
        },
      });
    });
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const port = Number(process.env.PORT ?? 8080);
  const { url } = await startServer({ port, mcp: true });
  console.log(`wiggum-rpc demo: ${url}`);
  console.log("(Ctrl-C to stop)");
}
