// `wiggum-rpc/http` against MCP servers nobody here wrote, each started and
// stopped by its test on 127.0.0.1: the official TypeScript SDK's
// Streamable HTTP server (tests/mcp/ts-server.mjs), driven from Node through
// the npm package's Node build and from headless Chromium through the web
// build; and the official Python SDK's (tests/py/mcp_server.py, in the venv
// scripts/setup.sh makes), in its SSE and its JSON reply modes.
import { test } from "node:test";
import assert from "node:assert/strict";
import { once } from "node:events";
import { createRequire } from "node:module";
import { join, resolve } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { createServer } from "node:http";
import { JSONRPCServer as StrangerServer } from "json-rpc-2.0";
import { startTsMcpServer } from "../mcp/ts-server.mjs";
import { launchChromium, openLibPage } from "./browser.mjs";
import { startPythonServer } from "./python.mjs";

const require = createRequire(import.meta.url);
const root = resolve(new URL("../..", import.meta.url).pathname);
const lib = { ...require("../../pkg/node/wiggum_rpc.cjs"), ...require("../../pkg/node/http.cjs") };
const { ErrorCode, RPCError, connectMcp, httpTransport, Peer } = lib;

async function withServer(run) {
  const server = await startTsMcpServer();
  try {
    await run(server);
  } finally {
    await server.close();
  }
}

/** Runs `run(mcp, server)` in a session with a fresh server of the TypeScript SDK; both end after. */
function withSession(options, run) {
  return withServer(async (server) => {
    const mcp = await connectMcp(server.url, options);
    try {
      await run(mcp, server);
    } finally {
      mcp.destroy();
    }
  });
}

const text = (result) => result.content.map((part) => part.text).join("");

test("initialize, tools/list, tools/call; the session and protocol version go with every later request", () =>
  withSession({ clientInfo: { name: "test", version: "1" }, headers: { authorization: "Bearer t0k3n" } }, async (mcp, server) => {
    assert.equal(mcp.server.serverInfo.name, "wiggum-test-server");
    assert.ok(server.state.requests.every((r) => r.authorization === "Bearer t0k3n"), "the headers option on every request");
    assert.ok(lib.MCP_PROTOCOL_VERSIONS.includes(mcp.server.protocolVersion));
    const { tools } = await mcp.request("tools/list");
    assert.deepEqual(tools.map((tool) => tool.name).sort(), ["add", "ask", "askAside", "askBriefly", "count", "cut", "cutAside", "fail", "hang", "notifyAside"]);
    assert.equal(text(await mcp.request("tools/call", { name: "add", arguments: { a: 2, b: 3 } })), "5");
    const [session] = server.sessions();
    const later = server.state.requests.slice(1).filter((r) => r.method === "POST");
    assert.ok(later.length >= 3);
    for (const request of later) {
      assert.equal(request.sessionId, session, "the session id on every request after initialize");
      assert.equal(request.protocolVersion, mcp.server.protocolVersion, "MCP-Protocol-Version after initialize");
    }
    // A tool's error, or an unknown tool, is a result with isError (this SDK's way);
    // an unknown method a JSON-RPC error.
    const failed = await mcp.request("tools/call", { name: "fail", arguments: {} });
    assert.equal(failed.isError, true);
    assert.match(text(failed), /the tool failed/);
    const unknownTool = await mcp.request("tools/call", { name: "nope", arguments: {} });
    assert.equal(unknownTool.isError, true);
    assert.match(text(unknownTool), /nope not found/);
    const unknown = await mcp.request("nope/method").catch((error) => error);
    assert.ok(unknown instanceof RPCError, String(unknown));
    assert.equal(unknown.code, ErrorCode.METHOD_NOT_FOUND);
    // ping is answered both ways
    assert.deepEqual(await mcp.request("ping"), {});
  }));

test("progress notifications on the call's SSE stream reach their handler before the result", () =>
  withSession({}, async (mcp, server) => {
    const progress = [];
    mcp.onNotify("notifications/progress", (params) => progress.push(params.progress));
    const result = await mcp.request("tools/call", { name: "count", arguments: { n: 4 }, _meta: { progressToken: "p1" } });
    assert.equal(text(result), "counted to 4");
    assert.deepEqual(progress, [1, 2, 3, 4]);
  }));

test("onProgress: the request carries MCP's progress token, the SDK's progress reaches that call, in order, and keeps it alive", () =>
  withSession({}, async (mcp) => {
    const heard = [];
    const stray = [];
    mcp.onNotify("notifications/progress", (params) => stray.push(params));
    // 20 steps of 10 ms: longer than the 100 ms timeout, kept alive by each step's progress.
    const result = await mcp.request("tools/call", { name: "count", arguments: { n: 20 } }, {
      timeout: 100,
      onProgress: (params) => heard.push(params),
    });
    assert.equal(text(result), "counted to 20");
    assert.deepEqual(heard.map((params) => params.progress), Array.from({ length: 20 }, (_, n) => n + 1));
    assert.ok(heard.every((params) => params.total === 20 && typeof params.progressToken === "number"), "the token is the request's id");
    assert.deepEqual(stray, [], "none went to the application's handler");
    // Without onProgress the request carries no token, and the SDK sends none.
    await mcp.request("tools/call", { name: "count", arguments: { n: 2 } });
    assert.equal(heard.length, 20);
  }));

test("a tool's request to the client (elicitation), on the call's stream and on the session's GET stream, is answered by the Peer's method", () =>
  withSession({ capabilities: { elicitation: { form: {} } } }, async (mcp, server) => {
    const asked = [];
    mcp.method("elicitation/create", (params) => {
      asked.push(params.message);
      return { action: "accept", content: { name: "Ralph" } };
    });
    assert.equal(text(await mcp.request("tools/call", { name: "ask", arguments: {} })), "accept: Ralph");
    assert.equal(text(await mcp.request("tools/call", { name: "askAside", arguments: {} })), "accept: Ralph");
    assert.deepEqual(asked, ["Your name?", "Your name?"]);
  }));

test("MCP never batches: with `batch: true` asked of the Peer, concurrent calls still go one POST each", () =>
  withSession({ peer: { batch: true } }, async (mcp, server) => {
    const sums = await Promise.all([1, 2, 3].map((a) => mcp.request("tools/call", { name: "add", arguments: { a, b: 10 } })));
    assert.deepEqual(sums.map(text), ["11", "12", "13"]);
    const posts = server.state.requests.filter((r) => r.method === "POST");
    assert.ok(posts.length >= 5, "initialize, initialized, and three calls");
    assert.deepEqual(posts.filter((r) => r.batch), [], "no POST carried an array");
  }));

test("a stream cut mid-call is resumed with Last-Event-ID after the server's retry, not cancelled", () =>
  withSession({}, async (mcp, server) => {
    const events = [];
    mcp.on("reconnecting", (detail) => events.push(["reconnecting", detail.delay]));
    mcp.on("reconnected", () => events.push(["reconnected"]));
    const progress = [];
    mcp.onNotify("notifications/progress", (params) => progress.push(params.progress));
    const started = Date.now();
    const result = await mcp.request("tools/call", { name: "cut", arguments: {}, _meta: { progressToken: "c" } });
    assert.equal(server.state.cutAvailable, true, "the SDK offered closeSSEStream (resumability on)");
    assert.equal(text(result), "answered after the cut");
    assert.deepEqual(progress, [1]);
    const resumed = server.state.requests.filter((r) => r.method === "GET" && r.lastEventId);
    assert.equal(resumed.length, 1, "one GET with Last-Event-ID");
    assert.deepEqual(events, [["reconnecting", 50], ["reconnected"]], "after the server's retry (50 ms)");
    assert.ok(Date.now() - started >= 50);
  }));

test("the session's GET stream, cut by the server, is reopened with Last-Event-ID: what was sent meanwhile is replayed", () =>
  withSession({}, async (mcp, server) => {
    const events = [];
    mcp.on("reconnecting", () => events.push("reconnecting"));
    mcp.on("reconnected", () => events.push("reconnected"));
    let changed = 0;
    mcp.onNotify("notifications/tools/list_changed", () => changed++);
    assert.equal(text(await mcp.request("tools/call", { name: "notifyAside", arguments: {} })), "notified");
    for (let i = 0; i < 50 && changed === 0; i++) await sleep(20);
    assert.equal(changed, 1, "a notification on the GET stream (it has an event id now)");
    assert.equal(text(await mcp.request("tools/call", { name: "cutAside", arguments: {} })), "cut");
    assert.equal(server.state.cutAsideAvailable, true);
    for (let i = 0; i < 150 && changed === 1; i++) await sleep(20);
    assert.equal(changed, 2, "the notification sent while away, replayed on the reopened stream");
    assert.deepEqual(events, ["reconnecting", "reconnected"]);
    const gets = server.state.requests.filter((r) => r.method === "GET");
    assert.equal(gets.length, 2, "opened, then reopened once");
    assert.equal(gets[0].lastEventId, undefined);
    assert.ok(gets[1].lastEventId, "reopened with Last-Event-ID");
  }));

test("a stream that cannot be resumed fails its call after maxResumes attempts, each reported", async () => {
  // A server that answers the POST with an event id and then hangs up, and
  // every resume with an empty stream: the answer never comes.
  const http = createServer((req, res) => {
    res.writeHead(200, { "content-type": "text/event-stream" });
    res.end(req.method === "POST" ? "id: e1\nretry: 10\ndata: \n\n" : "");
  });
  http.listen(0, "127.0.0.1");
  await once(http, "listening");
  try {
    const peer = new Peer(httpTransport(`http://127.0.0.1:${http.address().port}/mcp`, { mcp: true, maxResumes: 3 }), { timeout: 5000 });
    const events = [];
    peer.on("reconnecting", ({ attempt, delay }) => events.push(`reconnecting ${attempt} ${delay}`));
    peer.on("reconnected", ({ attempt }) => events.push(`reconnected ${attempt}`));
    const error = await peer.request("tools/list").catch((e) => e);
    assert.equal(error.code, ErrorCode.MCP_SERVER_ERROR);
    assert.deepEqual(events, ["reconnecting 1 10", "reconnected 1", "reconnecting 2 10", "reconnected 2", "reconnecting 3 10", "reconnected 3"]);
    peer.destroy();
  } finally {
    http.closeAllConnections();
    http.close();
  }
});

test("cancellation is MCP's notifications/cancelled: the tool's signal fires, the call rejects", () =>
  withSession({}, async (mcp, server) => {
    const controller = new AbortController();
    const call = mcp.request("tools/call", { name: "hang", arguments: {} }, { signal: controller.signal });
    await sleep(100);
    assert.equal(server.state.cancelled, false, "the tool is running");
    controller.abort();
    const error = await call.catch((e) => e);
    assert.equal(error.code, ErrorCode.REQUEST_CANCELLED);
    for (let i = 0; i < 50 && !server.state.cancelled; i++) await sleep(20);
    assert.equal(server.state.cancelled, true, "the server's handler saw the abort");
  }));

test("cancellation the other way: the server gives up on its request, the Peer's handler sees its signal abort", () =>
  withSession({ capabilities: { elicitation: { form: {} } } }, async (mcp, server) => {
    let aborted;
    mcp.method("elicitation/create", (_params, { signal }) => {
      aborted = false;
      return new Promise((resolve) =>
        signal.addEventListener("abort", () => {
          aborted = true;
          resolve({ action: "cancel" });
        }),
      );
    });
    const result = await mcp.request("tools/call", { name: "askBriefly", arguments: {} });
    assert.match(text(result), /^gave up: .*timed out/i);
    for (let i = 0; i < 50 && !aborted; i++) await sleep(20);
    assert.equal(aborted, true, "notifications/cancelled from the server aborted the handler");
  }));

test("session expiry: a 404 rejects with SESSION_EXPIRED and says so; initialize again works", () =>
  withServer(async (server) => {
    const mcp = await connectMcp(server.url);
    const expired = [];
    mcp.on("sessionexpired", (detail) => expired.push(detail.sessionId));
    const [session] = server.sessions();
    await fetch(`${server.origin}/expire`, { method: "POST" });
    const error = await mcp.request("tools/list").catch((e) => e);
    assert.equal(error.code, ErrorCode.SESSION_EXPIRED, String(error.message));
    assert.deepEqual(expired, [session]);
    mcp.destroy();
    const again = await connectMcp(server.url);
    assert.equal(text(await again.request("tools/call", { name: "add", arguments: { a: 1, b: 1 } })), "2");
    again.destroy();
  }));

test("destroy() ends the session with DELETE", () =>
  withServer(async (server) => {
    const mcp = await connectMcp(server.url);
    const [session] = server.sessions();
    mcp.destroy();
    for (let i = 0; i < 50 && server.state.deleted.length === 0; i++) await sleep(20);
    assert.deepEqual(server.state.deleted, [session]);
  }));

test("destroy() aborts the session's open GET stream, also when the server refuses DELETE (405)", async () => {
  let getClosed;
  const closed = new Promise((resolve) => (getClosed = resolve));
  const methods = [];
  const http = createServer(async (req, res) => {
    methods.push(req.method);
    if (req.method === "GET") {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write(": open\n\n");
      req.on("close", getClosed);
      return;
    }
    if (req.method === "DELETE") return res.writeHead(405).end();
    let body = "";
    for await (const chunk of req) body += chunk;
    const message = JSON.parse(body);
    if (message.id === undefined) return res.writeHead(202).end();
    const result = { protocolVersion: "2025-06-18", capabilities: {}, serverInfo: { name: "hand-made", version: "1" } };
    res.writeHead(200, { "content-type": "application/json", "mcp-session-id": "s1" });
    res.end(JSON.stringify({ jsonrpc: "2.0", id: message.id, result }));
  });
  http.listen(0, "127.0.0.1");
  await once(http, "listening");
  try {
    const mcp = await connectMcp(`http://127.0.0.1:${http.address().port}/mcp`);
    assert.equal(mcp.server.serverInfo.name, "hand-made");
    mcp.destroy();
    await Promise.race([closed, sleep(2000).then(() => assert.fail("the GET stream stayed open"))]);
    for (let i = 0; i < 50 && !methods.includes("DELETE"); i++) await sleep(20);
    assert.deepEqual(methods, ["POST", "POST", "GET", "DELETE"]);
  } finally {
    http.closeAllConnections();
    http.close();
  }
});

test("HTTP that is not JSON-RPC: a 500 page is MCP_SERVER_ERROR (HTTP_ERROR in plain mode) with status and body; a body that is not JSON is PARSE_ERROR", () =>
  withServer(async (server) => {
    for (const [mcp, code] of [
      [true, ErrorCode.MCP_SERVER_ERROR],
      [false, ErrorCode.HTTP_ERROR],
    ]) {
      const peer = new Peer(httpTransport(`${server.origin}/broken`, { mcp }), { timeout: 5000 });
      const error = await peer.request("tools/list").catch((e) => e);
      assert.equal(error.code, code);
      assert.equal(error.data.status, 500);
      assert.match(error.data.body, /Internal Server Error/);
      peer.destroy();
    }
    const peer = new Peer(httpTransport(`${server.origin}/not-json`), { timeout: 5000 });
    const error = await peer.request("anything").catch((e) => e);
    assert.equal(error.code, ErrorCode.PARSE_ERROR);
    peer.destroy();
    // Nothing listening at all: the call fails, it does not hang.
    const nowhere = new Peer(httpTransport("http://127.0.0.1:9/mcp", { mcp: true }), { timeout: 5000 });
    const refused = await nowhere.request("initialize", {}).catch((e) => e);
    assert.equal(refused.code, ErrorCode.MCP_SERVER_ERROR);
    nowhere.destroy();
  }));

test("an error status: a call its body answers gets that answer, another gets HTTP_ERROR with the status (traced)", async () => {
  require("../../pkg/node/trace.cjs");
  // Every reply is a 502; for "a" its body is a JSON-RPC error response to the call.
  const http = createServer(async (req, res) => {
    let body = "";
    for await (const chunk of req) body += chunk;
    const call = JSON.parse(body);
    const answer = { jsonrpc: "2.0", error: { code: -32050, message: "upstream refused", data: { why: "quota" } }, id: call.id };
    res.writeHead(502, { "content-type": "application/json" }).end(call.method === "a" ? JSON.stringify(answer) : "{}");
  });
  http.listen(0, "127.0.0.1");
  await once(http, "listening");
  const traced = [];
  const peer = new Peer(httpTransport(`http://127.0.0.1:${http.address().port}/rpc`), {
    timeout: 5000,
    trace: (record) => record.event && traced.push(record),
  });
  try {
    const [first, second] = await Promise.all(
      ["a", "b"].map((method) => peer.request(method, []).catch((error) => error)),
    );
    assert.deepEqual([first.code, first.message, first.data], [-32050, "upstream refused", { why: "quota" }]);
    assert.equal(second.code, ErrorCode.HTTP_ERROR);
    assert.equal(second.message, "HTTP 502 Bad Gateway");
    assert.equal(second.data.status, 502);
    assert.deepEqual(traced.map((record) => [record.event, record.method]), [["undelivered", "b"]]);
    assert.equal(peer.pending, 0);
  } finally {
    peer.destroy();
    http.close();
  }
});

test("in headless Chromium: the web build's wiggum-rpc/web/http calls the SDK's server from its origin", async () => {
  const server = await startTsMcpServer({ mounts: [["/pkg/", join(root, "pkg-web")], ["/page/", join(root, "tests/js/pages")]] });
  const browser = await launchChromium();
  try {
    const page = await browser.newPage();
    const problems = [];
    page.on("pageerror", (error) => problems.push(String(error)));
    await page.goto(`${server.origin}/page/blank.html`);
    const result = await page.evaluate(async (url) => {
      const root = await import("/pkg/wiggum_rpc.js");
      await root.default();
      const { connectMcp } = await import("/pkg/http.js");
      const mcp = await connectMcp(url);
      const progress = [];
      mcp.onNotify("notifications/progress", (params) => progress.push(params.progress));
      const counted = await mcp.request("tools/call", { name: "count", arguments: { n: 3 }, _meta: { progressToken: 1 } });
      const sum = await mcp.request("tools/call", { name: "add", arguments: { a: 20, b: 22 } });
      mcp.destroy();
      return { counted: counted.content[0].text, sum: sum.content[0].text, progress };
    }, server.url);
    assert.deepEqual(result, { counted: "counted to 3", sum: "42", progress: [1, 2, 3] });
    assert.deepEqual(problems, []);
  } finally {
    await browser.close();
    await server.close();
  }
});

/**
 * Starts the Python SDK's server in `mode` ("sse" or "json"), allowing a
 * browser page of `origin` to call it (CORS) when given.
 */
async function startPythonMcpServer(mode, origin) {
  const server = await startPythonServer("mcp_server.py", [mode, ...(origin ? [origin] : [])]);
  return { url: `http://127.0.0.1:${server.port}/mcp`, stop: server.stop };
}

for (const mode of ["sse", "json"]) {
  test(`the Python SDK's server, ${mode} replies: initialize, tools, progress, a tool's error, an unknown method`, async () => {
    const server = await startPythonMcpServer(mode);
    try {
      const mcp = await connectMcp(server.url);
      try {
        assert.equal(mcp.server.serverInfo.name, "wiggum-py-test-server");
        const { tools } = await mcp.request("tools/list");
        assert.deepEqual(tools.map((tool) => tool.name).sort(), ["add", "count", "fail"]);
        assert.equal(text(await mcp.request("tools/call", { name: "add", arguments: { a: 2, b: 3 } })), "5");
        const progress = [];
        mcp.onNotify("notifications/progress", (params) => progress.push(params.progress));
        const counted = await mcp.request("tools/call", { name: "count", arguments: { n: 3 }, _meta: { progressToken: "p" } });
        assert.equal(text(counted), "counted to 3");
        // A JSON reply holds only the response: the progress has nowhere to go.
        assert.deepEqual(progress, mode === "sse" ? [1, 2, 3] : []);
        const failed = await mcp.request("tools/call", { name: "fail", arguments: {} });
        assert.equal(failed.isError, true);
        assert.match(text(failed), /the tool failed/);
        const unknown = await mcp.request("nope").catch((error) => error);
        assert.equal(unknown.code, ErrorCode.METHOD_NOT_FOUND);
      } finally {
        mcp.destroy();
      }
    } finally {
      await server.stop();
    }
  });
}

test("plain JSON-RPC over HTTP toward json-rpc-2.0's server: calls, an error, a notification (204), a batch as one array when asked", async () => {
  const stranger = new StrangerServer();
  stranger.addMethod("add", ([a, b]) => a + b);
  stranger.addMethod("fail", () => {
    throw new Error("no");
  });
  const notes = [];
  stranger.addMethod("note", (params) => void notes.push(params));
  const bodies = [];
  const http = createServer(async (req, res) => {
    let body = "";
    for await (const chunk of req) body += chunk;
    bodies.push(JSON.parse(body));
    const reply = await stranger.receive(JSON.parse(body));
    if (reply === null || (Array.isArray(reply) && reply.length === 0)) res.writeHead(204).end();
    else res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(reply));
  });
  http.listen(0, "127.0.0.1");
  await once(http, "listening");
  const url = `http://127.0.0.1:${http.address().port}/rpc`;
  try {
    const client = new lib.JSONRPCClient(httpTransport(url), { timeout: 5000 });
    assert.equal(await client.request("add", [2, 3]), 5);
    const failed = await client.request("fail").catch((e) => e);
    assert.ok(failed instanceof RPCError);
    client.notify("note", ["hi"]);
    // Without `batch: true` a turn's calls go one POST each, as toward any stranger.
    assert.deepEqual(await Promise.all([client.request("add", [1, 1]), client.request("add", [2, 2])]), [2, 4]);
    await sleep(50);
    assert.deepEqual(notes, [["hi"]]);
    assert.equal(bodies.filter(Array.isArray).length, 0);
    client.destroy();
    // With it, the calls made while one is in flight go as one array.
    const batching = new lib.JSONRPCClient(httpTransport(url), { timeout: 5000, batch: true });
    const sums = [batching.request("add", [1, 2]), batching.request("add", [3, 4]), batching.request("add", [5, 6])];
    assert.deepEqual(await Promise.all(sums), [3, 7, 11]);
    const batches = bodies.filter(Array.isArray);
    assert.equal(batches.length, 1, `one POST of an array: ${JSON.stringify(bodies.slice(-3))}`);
    assert.deepEqual(batches[0].map((call) => call.params), [[3, 4], [5, 6]]);
    batching.destroy();
  } finally {
    http.closeAllConnections();
    http.close();
  }
});

test("in headless Chromium, across origins: the Python SDK's server with CORS allowed (Mcp-Session-Id exposed)", async () => {
  const lib = await openLibPage();
  const origin = await lib.page.evaluate(() => location.origin);
  const server = await startPythonMcpServer("sse", origin);
  try {
    const result = await lib.page.evaluate(async (url) => {
      const { connectMcp } = await import("/pkg/http.js");
      const mcp = await connectMcp(url);
      const session = mcp.server && (await mcp.request("tools/call", { name: "add", arguments: { a: 40, b: 2 } }));
      const progress = [];
      mcp.onNotify("notifications/progress", (params) => progress.push(params.progress));
      await mcp.request("tools/call", { name: "count", arguments: { n: 2 }, _meta: { progressToken: "b" } });
      mcp.destroy();
      return { sum: session.content[0].text, progress, name: mcp.server.serverInfo.name };
    }, server.url);
    assert.deepEqual(result, { sum: "42", progress: [1, 2], name: "wiggum-py-test-server" });
  } finally {
    await server.stop();
    await lib.close();
  }
});
