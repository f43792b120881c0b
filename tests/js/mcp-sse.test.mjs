// `wiggum-rpc/http`'s HTTP+SSE transport (MCP 2024-11-05) and connectMcp's
// fallback to it, against the official TypeScript SDK's SSEServerTransport
// (tests/mcp/ts-server.mjs: `/mcp` serves both transports, `/sse` the older
// one alone), from Node through the npm package's Node build and from
// headless Chromium through the web build; and against hand-made servers on
// 127.0.0.1 for what the SDK's server never does (an endpoint of another
// origin, a stream that breaks, a POST refused). Each test starts and stops
// its servers.
import { test } from "node:test";
import assert from "node:assert/strict";
import { once } from "node:events";
import { createServer } from "node:http";
import { createRequire } from "node:module";
import { join, resolve } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { startTsMcpServer } from "../mcp/ts-server.mjs";
import { launchChromium } from "./browser.mjs";

const require = createRequire(import.meta.url);
const root = resolve(new URL("../..", import.meta.url).pathname);
const lib = { ...require("../../pkg/node/wiggum_rpc.cjs"), ...require("../../pkg/node/http.cjs") };
const { ErrorCode, Peer, connectMcp, sseTransport } = lib;

async function withServer(run) {
  const server = await startTsMcpServer();
  try {
    await run(server);
  } finally {
    await server.close();
  }
}

/** A hand-made HTTP server on 127.0.0.1 answering with `handle(req, res, body)`; closed after `run`. */
async function withHttp(handle, run) {
  const http = createServer(async (req, res) => {
    let body = "";
    for await (const chunk of req) body += chunk;
    handle(req, res, body);
  });
  http.listen(0, "127.0.0.1");
  await once(http, "listening");
  try {
    await run(`http://127.0.0.1:${http.address().port}`, http.address().port);
  } finally {
    http.closeAllConnections();
    http.close();
  }
}

/** Waits, on a loaded machine, until `check()` holds (or 5 s passed). */
async function until(check) {
  for (let i = 0; i < 250 && !check(); i++) await sleep(20);
}

const text = (result) => result.content.map((part) => part.text).join("");

test("HTTP+SSE against the SDK's SSEServerTransport: initialize, tools, progress and a server request on the stream; each POST to the endpoint the stream named, answered 202, with the headers", () =>
  withServer(async (server) => {
    const mcp = await connectMcp(`${server.origin}/sse`, {
      transport: "sse",
      headers: { authorization: "Bearer t0k3n" },
      capabilities: { elicitation: { form: {} } },
    });
    try {
      assert.equal(mcp.transport, "sse");
      assert.equal(mcp.server.serverInfo.name, "wiggum-test-server");
      const { tools } = await mcp.request("tools/list");
      assert.ok(tools.some((tool) => tool.name === "add"));
      assert.equal(text(await mcp.request("tools/call", { name: "add", arguments: { a: 2, b: 3 } })), "5");
      const progress = [];
      mcp.onNotify("notifications/progress", (params) => progress.push(params.progress));
      const counted = await mcp.request("tools/call", { name: "count", arguments: { n: 3 }, _meta: { progressToken: "p" } });
      assert.equal(text(counted), "counted to 3");
      assert.deepEqual(progress, [1, 2, 3], "the progress came on the stream before the result");
      mcp.method("elicitation/create", () => ({ action: "accept", content: { name: "Ralph" } }));
      assert.equal(text(await mcp.request("tools/call", { name: "ask", arguments: {} })), "accept: Ralph");
      const unknown = await mcp.request("nope/method").catch((error) => error);
      assert.equal(unknown.code, ErrorCode.METHOD_NOT_FOUND);

      const [stream] = server.streams();
      const gets = server.state.requests.filter((r) => r.method === "GET");
      assert.equal(gets.length, 1, "one stream for the session");
      assert.equal(gets[0].path, "/sse");
      assert.equal(gets[0].accept, "text/event-stream");
      assert.equal(gets[0].authorization, "Bearer t0k3n", "the headers option on the GET");
      const posts = server.state.requests.filter((r) => r.method === "POST");
      await until(() => posts.every((r) => r.status !== undefined));
      // (POSTs run side by side, so they may arrive in another order.)
      assert.deepEqual(
        posts.map((r) => r.rpcMethod ?? "(an answer)").sort(),
        ["(an answer)", "initialize", "nope/method", "notifications/initialized", "tools/call", "tools/call", "tools/call", "tools/list"],
      );
      for (const post of posts) {
        assert.equal(post.path, "/messages", "POSTed where the endpoint event said");
        assert.equal(post.legacySession, stream, "with the session the endpoint's URL carries");
        assert.equal(post.status, 202);
        assert.equal(post.authorization, "Bearer t0k3n", "the headers option on every POST");
        assert.equal(post.contentType, "application/json");
      }
      assert.equal(posts[0].protocolVersion, undefined);
      assert.ok(posts.slice(1).every((r) => r.protocolVersion === mcp.server.protocolVersion), "MCP-Protocol-Version after initialize");
    } finally {
      mcp.destroy();
    }
  }));

test("HTTP+SSE: cancelling a call POSTs notifications/cancelled, and the SDK's tool sees its signal abort", () =>
  withServer(async (server) => {
    const mcp = await connectMcp(server.url, { transport: "sse" });
    try {
      const controller = new AbortController();
      const call = mcp.request("tools/call", { name: "hang", arguments: {} }, { signal: controller.signal });
      await until(() => server.state.cancelled === false);
      assert.equal(server.state.cancelled, false, "the tool is running");
      controller.abort();
      assert.equal((await call.catch((e) => e)).code, ErrorCode.REQUEST_CANCELLED);
      await until(() => server.state.cancelled);
      assert.equal(server.state.cancelled, true);
      const cancel = server.state.requests.find((r) => r.rpcMethod === "notifications/cancelled");
      assert.equal(cancel?.path, "/mcp", "the endpoint /mcp named: the server hosts both transports there");
    } finally {
      mcp.destroy();
    }
  }));

test("connectMcp falls back as the SDK's client does: Streamable HTTP's POST refused (405), HTTP+SSE at the same URL; an old server's 2024-11-05 accepted", () =>
  withServer(async (server) => {
    const mcp = await connectMcp(`${server.origin}/sse`, { protocolVersion: "2024-11-05" });
    try {
      assert.equal(mcp.transport, "sse");
      assert.equal(mcp.server.protocolVersion, "2024-11-05");
      assert.equal(text(await mcp.request("tools/call", { name: "add", arguments: { a: 20, b: 22 } })), "42");
      await until(() => server.state.requests.every((r) => r.status !== undefined || r.method === "GET"));
      const seen = server.state.requests.map((r) => `${r.method} ${r.path} ${r.status ?? "(open)"} ${r.rpcMethod ?? ""}`.trim());
      // Each of the first three waits for the one before; the last two run side by side.
      assert.deepEqual(seen.slice(0, 3), ["POST /sse 405 initialize", "GET /sse (open)", "POST /messages 202 initialize"]);
      assert.deepEqual(seen.slice(3).sort(), ["POST /messages 202 notifications/initialized", "POST /messages 202 tools/call"]);
      const later = server.state.requests.slice(3);
      assert.ok(later.every((r) => r.protocolVersion === "2024-11-05"));
    } finally {
      mcp.destroy();
    }
    // A server of both: Streamable HTTP is taken, and nothing falls back.
    const both = await connectMcp(server.url);
    assert.equal(both.transport, "streamable-http");
    both.destroy();
  }));

test("connectMcp falls back on a 4xx only: a 500 fails it, and so does transport: \"streamable-http\"; when no stream comes either, the first refusal is what it says", async () => {
  // Answers every POST with `status`, and serves a working HTTP+SSE stream
  // to any GET: a fallback would succeed, so only the rule keeps it out.
  let status = 500;
  const seen = [];
  let stream;
  await withHttp(
    (req, res, body) => {
      seen.push(req.method);
      if (req.method === "GET" && status !== 401) {
        res.writeHead(200, { "content-type": "text/event-stream" });
        res.write("event: endpoint\ndata: /messages\n\n");
        stream = res;
        return;
      }
      if (req.url === "/messages") {
        const message = JSON.parse(body);
        res.writeHead(202).end();
        const result = { protocolVersion: "2025-06-18", capabilities: {}, serverInfo: { name: "legacy", version: "1" } };
        if (message.method === "initialize") stream.write(`event: message\ndata: ${JSON.stringify({ jsonrpc: "2.0", id: message.id, result })}\n\n`);
        return;
      }
      res.writeHead(status, { "content-type": "text/plain" }).end(`refused with ${status}`);
    },
    async (origin) => {
      const refused = await connectMcp(`${origin}/mcp`).catch((e) => e);
      assert.equal(refused.code, ErrorCode.MCP_SERVER_ERROR);
      assert.equal(refused.data.status, 500);
      assert.deepEqual(seen, ["POST"], "no GET after a 500");

      status = 404;
      seen.length = 0;
      const strict = await connectMcp(`${origin}/mcp`, { transport: "streamable-http" }).catch((e) => e);
      assert.equal(strict.data?.status, 404);
      assert.deepEqual(seen, ["POST"], "no GET when told Streamable HTTP only");

      seen.length = 0;
      const fellBack = await connectMcp(`${origin}/mcp`);
      assert.equal(fellBack.transport, "sse");
      assert.equal(fellBack.server.serverInfo.name, "legacy");
      await until(() => seen.length === 4);
      fellBack.destroy();
      assert.deepEqual(seen, ["POST", "GET", "POST", "POST"], "the 404 POST, the stream, initialize, initialized");

      // 401 to everything: the GET opens no stream, and the POST's 401 is the error.
      status = 401;
      seen.length = 0;
      const unauthorized = await connectMcp(`${origin}/mcp`).catch((e) => e);
      assert.equal(unauthorized.code, ErrorCode.MCP_SERVER_ERROR);
      assert.equal(unauthorized.data.status, 401);
      assert.match(unauthorized.data.body, /refused with 401/);
      assert.deepEqual(seen, ["POST", "GET"]);
    },
  );
});

test("the stream's end fails the calls in flight with CONNECTION_CLOSED (not their timeout), later calls fail at once, and nothing reconnects", () =>
  withServer(async (server) => {
    const mcp = await connectMcp(server.url, { transport: "sse", timeout: 60_000 });
    const closes = [];
    mcp.on("close", (detail) => closes.push(detail));
    const call = mcp.request("tools/call", { name: "hang", arguments: {} }).catch((e) => e);
    await until(() => server.state.cancelled === false);
    assert.equal(server.state.cancelled, false, "the tool is running");
    // The server ends every session: the SDK's SSEServerTransport ends its stream.
    await fetch(`${server.origin}/expire`, { method: "POST" });
    const error = await call;
    assert.equal(error.code, ErrorCode.CONNECTION_CLOSED, `${error.code} ${error.message}`);
    assert.deepEqual(closes, [{ code: 1001, reason: "The server's SSE stream ended", final: true }]);
    const later = await mcp.request("tools/list").catch((e) => e);
    assert.equal(later.code, ErrorCode.SEND_FAILED);
    assert.match(later.message, /SSE stream has ended/);
    // Longer than any retry delay a reconnect would take (1 s when the server names none).
    await sleep(1500);
    assert.equal(server.state.requests.filter((r) => r.method === "GET").length, 1, "no second GET: a dead server shows");
    assert.equal(mcp.pending, 0);
    mcp.destroy();
  }));

test("the endpoint is resolved against the stream's URL; a POST refused fails its call with the status; a stream that breaks fails the calls in flight", async () => {
  let stream;
  const posted = [];
  await withHttp(
    (req, res, body) => {
      if (req.method === "GET") {
        res.writeHead(200, { "content-type": "text/event-stream" });
        // Relative to /deep/sse: /deep/messages.
        res.write(": hello\n\nevent: endpoint\ndata: messages?token=a\n\n");
        stream = res;
        return;
      }
      posted.push(req.url);
      const message = JSON.parse(body);
      if (message.method === "refuse") return res.writeHead(400, { "content-type": "text/plain" }).end("no such thing");
      res.writeHead(202).end("Accepted");
      if (message.method === "echo") {
        stream.write(`event: message\ndata: ${JSON.stringify({ jsonrpc: "2.0", id: message.id, result: message.params })}\n\n`);
      }
    },
    async (origin) => {
      const transport = sseTransport(`${origin}/deep/sse`);
      const peer = new Peer(transport, { timeout: 60_000 });
      const events = [];
      peer.on("open", () => events.push("open"));
      peer.on("close", (detail) => events.push(`close ${detail.code}`));
      try {
        // Sent before the endpoint is known: it waits for it.
        assert.deepEqual(await peer.request("echo", { x: 1 }), { x: 1 });
        assert.equal(transport.endpoint, `${origin}/deep/messages?token=a`);
        assert.deepEqual(posted, ["/deep/messages?token=a"]);
        const refused = await peer.request("refuse").catch((e) => e);
        assert.equal(refused.code, ErrorCode.MCP_SERVER_ERROR);
        assert.deepEqual(refused.data, { status: 400, body: "no such thing" });
        const held = peer.request("hold").catch((e) => e);
        await until(() => posted.length === 3);
        stream.socket.destroy();
        const error = await held;
        assert.equal(error.code, ErrorCode.CONNECTION_CLOSED);
        assert.deepEqual(events, ["open", "close 1006"]);
        assert.match(transport.closed.reason, /stream failed/);
      } finally {
        peer.destroy();
      }
    },
  );
});

test("an endpoint of another origin is refused as the SDK refuses it: nothing is POSTed, the stream is closed, connectMcp says why", async () => {
  const seen = [];
  let streamClosed = false;
  await withHttp(
    (req, res) => {
      seen.push(req.method);
      if (req.method !== "GET") return res.writeHead(202).end();
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.on("close", () => (streamClosed = true));
      // The same server by another name: a POST there would be seen here.
      res.write(`event: endpoint\ndata: http://localhost:${req.socket.localPort}/messages\n\n`);
    },
    async (origin) => {
      const error = await connectMcp(`${origin}/sse`, { transport: "sse" }).catch((e) => e);
      assert.equal(error.code, ErrorCode.CONNECTION_CLOSED);
      assert.match(error.message, /endpoint http:\/\/localhost:\d+ is not of the stream's origin http:\/\/127\.0\.0\.1:\d+/);
      assert.equal(error.data.code, 1006);
      await until(() => streamClosed);
      assert.equal(streamClosed, true);
      await sleep(100);
      assert.deepEqual(seen, ["GET"]);
    },
  );
});

test("a GET answered without a stream fails connectMcp with its status", () =>
  withServer(async (server) => {
    const error = await connectMcp(`${server.origin}/nothing-here`, { transport: "sse" }).catch((e) => e);
    assert.equal(error.code, ErrorCode.CONNECTION_CLOSED);
    assert.match(error.message, /opened no SSE stream \(HTTP 404\)/);
    assert.equal(error.data.status, 404);
  }));

test("destroy() closes the stream: the SDK's server sees its session end; calls in flight reject DESTROYED", () =>
  withServer(async (server) => {
    const mcp = await connectMcp(`${server.origin}/sse`, { transport: "sse" });
    assert.equal(server.streams().length, 1);
    const call = mcp.request("tools/call", { name: "hang", arguments: {} }).catch((e) => e);
    await until(() => server.state.cancelled === false);
    mcp.destroy();
    assert.equal((await call).code, ErrorCode.DESTROYED);
    await until(() => server.streams().length === 0);
    assert.deepEqual(server.streams(), [], "the server's SSEServerTransport closed");
  }));

test("in headless Chromium: the web build falls back to the SDK's HTTP+SSE server (a URL relative to the page), progress on the stream, the stream's end failing a call", async () => {
  const server = await startTsMcpServer({ mounts: [["/pkg/", join(root, "pkg-web")], ["/page/", join(root, "tests/js/pages")]] });
  const browser = await launchChromium();
  try {
    const page = await browser.newPage();
    const problems = [];
    page.on("pageerror", (error) => problems.push(String(error)));
    await page.goto(`${server.origin}/page/blank.html`);
    const result = await page.evaluate(async () => {
      const root = await import("/pkg/wiggum_rpc.js");
      await root.default();
      const { connectMcp } = await import("/pkg/http.js");
      const mcp = await connectMcp("/sse");
      const progress = [];
      mcp.onNotify("notifications/progress", (params) => progress.push(params.progress));
      const counted = await mcp.request("tools/call", { name: "count", arguments: { n: 3 }, _meta: { progressToken: 1 } });
      const sum = await mcp.request("tools/call", { name: "add", arguments: { a: 20, b: 22 } });
      const hanging = mcp.request("tools/call", { name: "hang", arguments: {} }).catch((error) => error);
      await new Promise((wake) => setTimeout(wake, 200));
      await fetch("/expire", { method: "POST" });
      const ended = await hanging;
      mcp.destroy();
      return { transport: mcp.transport, counted: counted.content[0].text, sum: sum.content[0].text, progress, ended: ended.code };
    });
    assert.deepEqual(result, {
      transport: "sse",
      counted: "counted to 3",
      sum: "42",
      progress: [1, 2, 3],
      ended: ErrorCode.CONNECTION_CLOSED,
    });
    assert.deepEqual(problems, []);
    const seen = server.state.requests.slice(0, 3).map((r) => `${r.method} ${r.path}${r.method === "POST" ? ` ${r.status}` : ""}`);
    assert.deepEqual(seen, ["POST /sse 405", "GET /sse", "POST /messages 202"]);
  } finally {
    await browser.close();
    await server.close();
  }
});
