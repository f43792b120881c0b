// The demo page end to end, in headless Chromium with the web build (and the
// demo's esbuild-wasm and ZenFS, from scripts/build-demo.mjs): clicks
// through each boundary (preview iframe ↔ parent, build worker ↔ main thread,
// Chief ↔ Ralph over a MessageChannel), checks what the page shows, checks
// the inspector's rows (every request paired with its response, the right
// error codes) and numbers, and that nothing logged an error or failed to
// load. Saves a 1280×800 screenshot to target/demo.png.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdir } from "node:fs/promises";
import { startServer } from "../../scripts/serve.mjs";
import { launchChromium } from "./browser.mjs";

const screenshot = new URL("../../target/demo.png", import.meta.url).pathname;

let server;
let browser;
let page;
const problems = [];

before(async () => {
  execFileSync(process.execPath, [new URL("../../scripts/build-demo.mjs", import.meta.url).pathname]);
  server = await startServer({ mcp: true });
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  const onConsole = (message) => message.type() === "error" && problems.push(`console: ${message.text()}`);
  page.on("console", onConsole);
  page.on("worker", (worker) => worker.on("console", onConsole));
  page.on("pageerror", (error) => problems.push(`pageerror: ${error}`));
  page.on("requestfailed", (request) => problems.push(`failed: ${request.url()} ${request.failure()?.errorText}`));
  page.on("response", (response) => response.status() >= 400 && problems.push(`${response.status()}: ${response.url()}`));
  await page.goto(server.url);
  await page.waitForSelector("#status.ready", { timeout: 15000 });
  // The MCP session opened and listed its tools: no traffic of its own from here on.
  await page.waitForSelector("#mcp-call:not([disabled])", { timeout: 15000 });
});

after(async () => {
  await browser?.close();
  await server?.close();
});

/** The inspector's rows, as the data attributes the page gives them. */
function rows() {
  return page.$$eval("#log li", (items) =>
    items.map((item) => ({
      ...item.dataset,
      error: item.classList.contains("error"),
      visible: item.checkVisibility(),
      text: item.textContent,
      detail: item.querySelector(".detail").textContent,
      batchLabel: item.querySelector(".batch").textContent,
    })));
}

const text = (selector) => page.textContent(selector);
const listItems = (selector) => page.locator(`${selector} li`).allTextContents();
const stat = (boundary, name) => text(`#stats tr[data-boundary="${boundary}"] [data-stat="${name}"]`);

/** The response row answering `request`: same boundary, other direction, same id, after it. */
function responseTo(all, request) {
  const at = all.indexOf(request);
  // Up to the next request with the same id there: a new worker's endpoint counts its ids from 1 again.
  const sameId = (row) => row.boundary === request.boundary && row.id === request.id;
  const next = all.findIndex((row, i) => i > at && row.kind === "request" && row.dir === request.dir && sameId(row));
  return all.slice(at + 1, next === -1 ? undefined : next).filter((row) => row.kind === "response" && row.dir !== request.dir && sameId(row));
}

/** The last request of `method` on `boundary` in direction `dir`, and its response. */
async function lastCall(boundary, dir, method) {
  const all = await rows();
  const request = all.findLast((row) => row.kind === "request" && row.boundary === boundary && row.dir === dir && row.method === method);
  assert.ok(request, `a ${method} request ${dir} on ${boundary}`);
  const responses = responseTo(all, request);
  assert.equal(responses.length, 1, `one response to ${method} #${request.id}`);
  const [response] = responses;
  assert.equal(response.answers, method, "the response row names the method it answers");
  assert.ok(Number(response.latency) >= 0, `latency on the response row of ${method}`);
  assert.match(response.text, /\d ms/, "latency shown");
  return { request, response, all };
}

async function waitForInFlight(boundary, count) {
  await page.waitForFunction(
    ([name, expected]) => document.querySelector(`#stats tr[data-boundary="${name}"] [data-stat="inflight"]`)?.textContent === String(expected),
    [boundary, count],
  );
}

test("the page loads and the preview iframe fetches its first page from the parent", async () => {
  assert.equal(await text("#status"), "ready");
  assert.ok((await listItems("#preview-events")).some((item) => item === "updateNavigationState / (Home)"));
  assert.match(await page.frameLocator("#preview").locator("#page").textContent(), /Served by the parent/);
  const { request, response } = await lastCall("preview", "in", "fetch");
  assert.equal(request.detail, '{"url":"/"}');
  assert.equal(response.dir, "out");
  assert.equal(response.error, false);
});

test("esbuild-wasm bundles the TSX project from the shared file system; the preview runs what was built", async () => {
  await page.click("#build");
  await page.waitForSelector('#build-result[data-state="ok"]', { timeout: 60000 });
  assert.match(await text("#build-result"), /^esbuild bundled 3 files into dist\/main\.js/);
  const outputs = await listItems("#build-output");
  assert.equal(outputs.length, 1);
  assert.match(outputs[0], /^dist\/main\.js · \d+ B/);
  // Compiled for real: the JSX became calls of the factory, the types are gone.
  assert.match(outputs[0], /h\(Greeting, \{ name: "wiggum" \}\)/);
  assert.doesNotMatch(outputs[0], /: string/);
  assert.equal(await page.evaluate(() => document.querySelector("#progress").value), 1);
  assert.match(await text("#progress-label"), /^3\/3 /);

  const { request, response, all } = await lastCall("build", "out", "build");
  assert.equal(request.detail, '{"dir":"/project","entry":"src/main.tsx"}');
  assert.equal(response.error, false);
  assert.match(response.detail, /"dist\/main\.js":"‹Uint8Array \d+ B›"/, "outputs arrive as Uint8Arrays");
  const progress = all.slice(all.indexOf(request), all.indexOf(response))
    .filter((row) => row.kind === "notification" && row.method === "$/progress");
  assert.equal(progress.length, 3, "one progress of the build call per file loaded, before the result");

  // The preview navigates to /app, fetches the bundle from the parent and runs it.
  await page.waitForSelector('#preview-result[data-state="ok"]');
  assert.equal(await page.frameLocator("#preview").locator("#app h1.greeting").textContent(), "hello, wiggum");
  await page.waitForFunction(() => [...document.querySelectorAll("#preview-events li")].some((li) => li.textContent.includes("built app rendered")));
  assert.ok((await listItems("#preview-events")).includes("console.log built app rendered: hello, wiggum"));
  await page.screenshot({ path: screenshot.replace(/\.png$/, "-build.png") });
});

test("the sandboxed preview (allow-scripts, an opaque origin) runs the built app too", async () => {
  const rendered = async () => (await listItems("#preview-events")).filter((item) => item === "console.log built app rendered: hello, wiggum").length;
  const before = await rendered();
  await page.check("#sandboxed");
  await page.waitForFunction(() => [...document.querySelectorAll("#preview-events li")].some((li) => li.textContent.endsWith("/ (Home) [sandboxed]")));
  assert.equal(await page.getAttribute("#preview", "sandbox"), "allow-scripts");
  const frame = page.frames().find((f) => f.url().endsWith("/preview.html"));
  assert.equal(await frame.evaluate(() => self.origin), "null");
  await page.click("#build");
  await page.waitForSelector('#build-result[data-state="ok"]', { timeout: 60000 });
  await page.waitForSelector('#preview-result[data-state="ok"]');
  await page.waitForFunction((count) => [...document.querySelectorAll("#preview-events li")]
    .filter((li) => li.textContent === "console.log built app rendered: hello, wiggum").length === count, before + 1);
  assert.equal(await page.frameLocator("#preview").locator("#app h1.greeting").textContent(), "hello, wiggum");

  // Untrusted code that never returns: Chromium runs the sandboxed frame in a
  // process of its own, so the page goes on and the call times out.
  await page.fill("#route", "/loop");
  const started = Date.now();
  await page.click("#navigate");
  const ticks = await page.evaluate(async () => {
    let count = 0;
    const end = performance.now() + 1000;
    while (performance.now() < end) {
      await new Promise((resolve) => setTimeout(resolve, 10));
      count++;
    }
    return count;
  });
  assert.ok(ticks > 50, `the page kept running beside the looping frame (${ticks} timer turns in 1 s)`);
  await page.waitForSelector('#preview-result[data-state="error"]', { timeout: 15000 });
  assert.match(await text("#preview-result"), /^-32099 REQUEST_TIMEOUT/);
  assert.ok(Date.now() - started < 10000);
  // Leaving the sandbox replaces the looping frame.
  await page.uncheck("#sandboxed");
  await page.waitForFunction(() => document.querySelector("#preview").getAttribute("sandbox") === null
    && [...document.querySelectorAll("#preview-events li")].at(-1)?.textContent === "updateNavigationState / (Home)");
});

test("a syntax error is BUILD_FAILED (-32001) with esbuild's diagnostic: file, line, column", async () => {
  await page.click('#tabs [data-file="src/greeting.tsx"]');
  assert.match(await page.inputValue("#source"), /export function Greeting/);
  const original = await page.inputValue("#source");
  await page.fill("#source", 'import { h } from "./h";\n\nexport function Greeting({ name }: { name: string }) {\n  return <h1 class="greeting">hello, {name}</h1>;\n');
  await page.click("#build");
  await page.waitForSelector('#build-result[data-state="error"]', { timeout: 60000 });
  assert.match(await text("#build-result"), /^-32001 BUILD_FAILED: Build failed: 1 error/);
  const shown = await listItems("#build-output");
  assert.equal(shown.length, 1);
  assert.match(shown[0], /^src\/greeting\.tsx:5:\d+ Unexpected end of file/);
  assert.equal(await page.getAttribute('#tabs [data-file="src/greeting.tsx"]', "class"), "error");

  const { response } = await lastCall("build", "out", "build");
  assert.equal(response.code, "-32001");
  assert.equal(response.error, true);
  assert.match(response.detail, /-32001 BUILD_FAILED .*"diagnostics"/);
  await page.screenshot({ path: screenshot.replace(/\.png$/, "-diagnostic.png") });
  // Mended, it builds again.
  await page.fill("#source", original);
  await page.click("#build");
  await page.waitForSelector('#build-result[data-state="ok"]', { timeout: 60000 });
});

test("the build worker terminated mid-build: the call fails at once with DESTROYED, the next build starts a new worker", async () => {
  // A 5 MB source keeps esbuild busy long enough to stop it halfway.
  await page.click('#tabs [data-file="src/h.ts"]');
  const original = await page.inputValue("#source");
  await page.evaluate((source) => {
    const area = document.querySelector("#source");
    area.value = `${source}export const big = ${JSON.stringify("x".repeat(5 * 1024 * 1024))};\n`;
    area.dispatchEvent(new Event("input"));
  }, original);
  const started = Date.now();
  await page.click("#build");
  await waitForInFlight("build", 1);
  await page.click("#stop-build");
  await page.waitForSelector('#build-result[data-state="error"]');
  assert.match(await text("#build-result"), /^-32098 DESTROYED/);
  assert.ok(Date.now() - started < 10000, "failed at once, not at a timeout");
  await page.fill("#source", original);
  await page.click("#build");
  await page.waitForSelector('#build-result[data-state="ok"]', { timeout: 60000 });
  assert.match(await text("#build-result"), /^esbuild bundled 3 files/);
});

test("describe: the build worker's OpenRPC document (rpc.discover), its params as JSON Schema", async () => {
  await page.click("#discover");
  await page.waitForSelector('#build-result[data-state="ok"]');
  assert.equal(await text("#build-result"), "Wiggum build worker: 4 methods (rpc.discover, OpenRPC)");
  const methods = await listItems("#build-output");
  assert.deepEqual(methods.map((item) => item.split(" ")[0]), ["listMethods", "describeMethods", "rpc.discover", "build"]);
  const build = methods[3];
  assert.match(build, /files: \{"type":"object","additionalProperties":\{"type":"string"\}/);
  assert.match(build, /errors: INVALID_PARAMS INTERNAL_ERROR REQUEST_CANCELLED BUILD_FAILED/);
  const { response } = await lastCall("build", "out", "rpc.discover");
  assert.equal(response.error, false);
  assert.match(response.detail, /"openrpc":"1\.3\.2"/);
});

test("navigate renders a page the iframe fetches from the parent, and reports it", async () => {
  await page.fill("#route", "/about");
  await page.click("#navigate");
  await page.waitForSelector('#preview-result[data-state="ok"]');
  assert.equal(await text("#preview-result"), "navigate → at /about");
  assert.match(await page.frameLocator("#preview").locator("#page").textContent(), /one protocol for every boundary/);
  const events = await listItems("#preview-events");
  assert.ok(events.includes("updateNavigationState /about (About)"), "navigation state shown");
  assert.ok(events.includes("console.info about: script ran"), "the page script's console shown");

  const { request, response, all } = await lastCall("preview", "out", "navigate");
  assert.equal(request.detail, '{"path":"/about"}');
  assert.equal(response.detail, '{"route":"/about"}');
  // Serving navigate, the iframe called back into the parent.
  const fetch = all.slice(all.indexOf(request), all.indexOf(response)).find((row) => row.method === "fetch");
  assert.equal(fetch?.detail, '{"url":"/about"}');
});

test("a mistyped route is NAVIGATION_FAILED (-32006) and the iframe reports the failed fetch", async () => {
  await page.fill("#route", "/abuot");
  await page.click("#navigate");
  await page.waitForSelector('#preview-result[data-state="error"]');
  assert.equal(await text("#preview-result"), "-32006 NAVIGATION_FAILED: Navigation failed: no page at /abuot");
  await page.waitForFunction(() => [...document.querySelectorAll("#preview-events li.error")].some((item) => item.textContent.includes("/abuot")));
  assert.ok((await listItems("#preview-events")).includes("error fetch /abuot answered 404"));
  assert.match(await page.frameLocator("#preview").locator("#page").textContent(), /About/, "the iframe stays where it was");

  const { response } = await lastCall("preview", "out", "navigate");
  assert.equal(response.code, "-32006");
  assert.equal(response.error, true);
});

test("a page whose script throws still renders, and the iframe sends an error notification", async () => {
  await page.fill("#route", "/broken");
  await page.click("#navigate");
  await page.waitForFunction(() => document.querySelector("#preview-result").textContent === "navigate → at /broken");
  await page.waitForFunction(() => [...document.querySelectorAll("#preview-events li.error")].some((item) => item.textContent.includes("TypeError")));
  assert.ok((await listItems("#preview-events")).some((item) => /^error script of \/broken threw TypeError: /.test(item)));
  assert.match(await page.frameLocator("#preview").locator("#page").textContent(), /This page's script reads/);
  const all = await rows();
  const error = all.findLast((row) => row.kind === "notification" && row.method === "error");
  assert.equal(error?.boundary, "preview");
  assert.equal(error.dir, "in");
  assert.match(error.detail, /"kind":"script","path":"\/broken".*TypeError/);
});

test("a task that completes: Ralph asks before writing, the page allows", async () => {
  await page.selectOption("#task", "0");
  await page.click("#send-task");
  await page.waitForSelector('#permission[data-state="asking"]');
  assert.equal(await text("#permission-text"), "Ralph asks: write src/App.tsx?");
  assert.equal(await page.isEnabled("#allow"), true);
  // sendTask (page → Ralph) and requestPermission (Ralph → page) both wait.
  await waitForInFlight("ralph", 2);
  const asking = await rows();
  const question = asking.findLast((row) => row.method === "requestPermission");
  assert.equal(question.dir, "in");
  assert.equal(responseTo(asking, question).length, 0, "not answered before the click");

  await page.click("#allow");
  await page.waitForSelector('#task-result[data-state="ok"]', { timeout: 10000 });
  assert.match(await text("#task-result"), /^task-1 done in \d+ ms: wrote \/project\/ralph\/src\/App\.tsx; gates typecheck pass, lint pass, test pass$/);
  assert.deepEqual(await page.$$eval("#steps li", (items) => items.map((item) => item.dataset.state)), Array(5).fill("done"));
  assert.deepEqual(await page.$$eval("#gates .gate.pass", (items) => items.map((item) => item.dataset.gate)), ["typecheck", "lint", "test"]);
  assert.equal(await text("#permission-text"), "No question from Ralph.");
  await waitForInFlight("ralph", 0);

  const { request, response, all } = await lastCall("ralph", "out", "sendTask");
  assert.equal(response.error, false);
  assert.match(response.detail, /"wrote":\["\/project\/ralph\/src\/App\.tsx"\]/);
  // Ralph wrote it through ZenFS on the port its RPC uses: the page's file system has it.
  assert.equal(await page.evaluate(() => window.demoFs.promises.readFile("/project/ralph/src/App.tsx", "utf8")), "// Add a dark-mode toggle (task-1)\n");
  // Both protocols on one port: every JSON-RPC message from Ralph is in the
  // inspector, and none of ZenFS's.
  const shared = await page.$eval("#shared-port", (el) => ({ jsonrpc: Number(el.dataset.jsonrpc), zenfs: Number(el.dataset.zenfs) }));
  assert.ok(shared.zenfs > 0, "ZenFS messages crossed the port");
  const fromRalph = (await rows()).filter((row) => row.boundary === "ralph" && row.dir === "in");
  const messagesFromRalph = new Set(fromRalph.map((row, i) => (row.batch ? `batch ${row.batch}` : `row ${i}`))).size;
  assert.ok(messagesFromRalph > 0);
  assert.equal(shared.jsonrpc, messagesFromRalph, "the inspector saw each JSON-RPC message on the port, and only those");
  const permission = await lastCall("ralph", "in", "requestPermission");
  assert.equal(permission.response.detail, '{"granted":true}');
  const during = all.slice(all.indexOf(request), all.indexOf(response));
  assert.equal(during.filter((row) => row.method === "progress").length, 6, "a progress per step, and one when done");
  // The three gate results are sent in one turn: they travel as one batch.
  const gates = during.filter((row) => row.method === "gateResult");
  assert.equal(gates.length, 3);
  assert.ok(gates.at(-1).batch, "gate results are part of a batch");
  const batch = all.filter((row) => row.batch === gates.at(-1).batch);
  assert.ok(batch.length >= 2);
  assert.equal(batch.at(-1).batchLabel, `batch ${batch.length}/${batch.length}`);
});

test("a cancelled task is TASK_CANCELLED (-32004), and Ralph withdraws its question", async () => {
  await page.click("#send-task");
  await page.waitForSelector('#permission[data-state="asking"]');
  await page.click("#cancel-task");
  await page.waitForSelector('#task-result[data-state="error"]');
  assert.equal(await text("#task-result"), '-32004 TASK_CANCELLED: Task cancelled during "write src/App.tsx"');
  assert.equal(await page.getAttribute("#permission", "data-state"), "idle");
  assert.equal(await page.isDisabled("#allow"), true);
  assert.equal(await page.$eval('#steps li[data-state="failed"]', (item) => item.textContent), "write src/App.tsx");
  await waitForInFlight("ralph", 0);

  const { response } = await lastCall("ralph", "out", "sendTask");
  assert.equal(response.code, "-32004");
  assert.equal(response.error, true);
  const cancel = await lastCall("ralph", "out", "cancelTask");
  assert.equal(cancel.response.detail, '{"id":"task-2","cancelled":true}');
  // Ralph aborted its requestPermission call: the library told the page so.
  const permission = await lastCall("ralph", "in", "requestPermission");
  const withdrawn = permission.all.find((row) => row.method === "$/cancelRequest" && row.boundary === "ralph");
  assert.equal(withdrawn?.detail, `{"id":${permission.request.id}}`);
});

test("a denied permission is PERMISSION_DENIED (-32003)", async () => {
  await page.selectOption("#task", "1");
  await page.click("#send-task");
  await page.waitForSelector('#permission[data-state="asking"]');
  assert.equal(await text("#permission-text"), "Ralph asks: write src/components/Button.tsx?");
  await page.click("#deny");
  await page.waitForSelector('#task-result[data-state="error"]');
  assert.equal(await text("#task-result"), "-32003 PERMISSION_DENIED: Permission denied: write src/components/Button.tsx");
  await waitForInFlight("ralph", 0);

  const { response } = await lastCall("ralph", "out", "sendTask");
  assert.equal(response.code, "-32003");
  assert.match(response.detail, /"path":"src\/components\/Button\.tsx"/);
  const permission = await lastCall("ralph", "in", "requestPermission");
  assert.equal(permission.response.detail, '{"granted":false}');
});

test("every request in the inspector is paired with one response, and the numbers agree", async () => {
  const all = await rows();
  const requests = all.filter((row) => row.kind === "request");
  const responses = all.filter((row) => row.kind === "response");
  assert.ok(requests.length >= 15, `${requests.length} requests`);
  let unanswered = 0;
  for (const request of requests) {
    const answers = responseTo(all, request);
    if (answers.length === 0) {
      // Only the build whose worker was stopped, and the navigation of the frame
      // that never returns, have no answer: their endpoint reported how they ended.
      const ended = all.slice(all.indexOf(request)).find((row) =>
        row.kind === "event" && row.boundary === request.boundary && row.text.includes(`#${request.id}`));
      assert.ok(ended && ["build", "navigate"].includes(request.method), `${request.boundary} ${request.method} #${request.id}: answered, or ended by its endpoint`);
      unanswered++;
      continue;
    }
    assert.equal(answers.length, 1, `${request.boundary} ${request.method} #${request.id}: one response`);
    assert.equal(answers[0].answers, request.method);
  }
  for (const response of responses) {
    assert.ok(requests.some((request) => responseTo(all, request)[0] === response), `response #${response.id} answers a request`);
  }
  assert.equal(unanswered, 2, "the stopped build and the looping frame's navigation");
  assert.ok(all.every((row) => row.kind !== "invalid"), "only JSON-RPC messages");
  const codes = [...new Set(responses.filter((row) => row.error).map((row) => row.code))].sort();
  assert.deepEqual(codes, ["-32001", "-32003", "-32004", "-32006"]);

  for (const boundary of ["preview", "build", "ralph"]) {
    const own = requests.filter((row) => row.boundary === boundary);
    assert.equal(await stat(boundary, "calls"), String(own.length), `${boundary} calls`);
    assert.equal(await stat(boundary, "inflight"), "0", `${boundary} in flight`);
    assert.match(await stat(boundary, "p50"), /^\d+(\.\d)? ms$/);
    assert.match(await stat(boundary, "p99"), /^\d+(\.\d)? ms$/);
  }
  assert.equal(await stat("all", "calls"), String(requests.length));
  assert.equal(await stat("all", "errors"), "4");
  assert.equal(await text("#inspector-count"), `${all.filter((row) => row.kind !== "event").length} messages`);

  // The page fits the window: panels scroll inside, the page itself does not.
  assert.deepEqual(await page.evaluate(() => [document.documentElement.scrollHeight, document.documentElement.scrollWidth]), [800, 1280]);
  await mkdir(new URL("../../target/", import.meta.url), { recursive: true });
  await page.screenshot({ path: screenshot });
});

test("the inspector filters by boundary, pauses while still counting, and clears", async () => {
  await page.selectOption("#filter", "ralph");
  let all = await rows();
  assert.ok(all.some((row) => row.boundary === "ralph" && row.visible));
  assert.ok(all.every((row) => row.visible === (row.boundary === "ralph")), "only Ralph's rows shown");
  await page.selectOption("#filter", "all");
  assert.ok((await rows()).every((row) => row.visible));

  const shown = all.length;
  const messages = all.filter((row) => row.kind !== "event").length;
  const calls = Number(await stat("preview", "calls"));
  await page.click("#pause");
  await page.click("#refresh");
  await page.waitForFunction(() => document.querySelector("#preview-result").textContent === "refresh → at /broken");
  // refresh (and the iframe's fetch, in it) counted, not shown.
  await page.waitForFunction((expected) => document.querySelector('#stats tr[data-boundary="preview"] [data-stat="calls"]').textContent === String(expected), calls + 2);
  assert.equal((await rows()).length, shown);
  assert.match(await text("#inspector-count"), new RegExp(`^${messages + 6} messages · paused, 6 not shown$`));

  await page.click("#pause");
  await page.click("#clear");
  assert.equal((await rows()).length, 0);
  await page.click("#refresh");
  await page.waitForFunction(() => document.querySelectorAll('#log li[data-kind="response"][data-answers="refresh"]').length === 1);
  const fresh = await rows();
  assert.deepEqual(fresh.map((row) => `${row.dir} ${row.kind} ${row.method ?? row.answers}`), [
    "out request refresh",
    "in request fetch",
    "out response fetch",
    "in notification updateNavigationState",
    "in notification error",
    "in response refresh",
  ]);
});

test("the MCP panel: the server's tools listed, build_site called with its progress, every message in the inspector", async () => {
  assert.match(await text("#mcp-result"), /^wiggum-demo-tools \(MCP 2025-11-25\): 2 tools$/);
  assert.deepEqual(await page.$$eval("#mcp-tools li b", (tags) => tags.map((tag) => tag.textContent)), ["list_routes", "build_site"]);
  await page.fill("#mcp-pages", "3");
  await page.click("#mcp-call");
  await page.waitForFunction(() => document.querySelector("#mcp-result").textContent === "built 3 pages", null, { timeout: 15000 });
  assert.equal(await text("#mcp-progress-label"), "3/3");
  const mcp = (await rows()).filter((row) => row.boundary === "mcp");
  // (An earlier test cleared the list: the session's opening rows are gone, its calls still counted.)
  assert.deepEqual(mcp.map((row) => `${row.dir} ${row.kind} ${row.method ?? row.answers}`), [
    "out request tools/call",
    "in notification notifications/progress",
    "in notification notifications/progress",
    "in notification notifications/progress",
    "in response tools/call",
  ]);
  assert.equal(await stat("mcp", "calls"), "3", "initialize, tools/list, tools/call");
});

test("the MCP panel over HTTP+SSE: the same server by the older transport (one GET stream, each message POSTed to the endpoint it named), build_site's progress on that stream", async () => {
  const requests = [];
  const record = (request) => {
    const url = new URL(request.url());
    if (url.pathname === "/mcp") requests.push(`${request.method()} ${url.searchParams.has("sessionId") ? "endpoint" : request.headers().accept}`);
  };
  page.on("request", record);
  try {
    await page.selectOption("#mcp-transport", "sse");
    await page.waitForFunction(() => document.querySelector("#mcp-result").dataset.state === "ok" && !document.querySelector("#mcp-call").disabled, null, { timeout: 15000 });
    assert.match(await text("#mcp-result"), /^wiggum-demo-tools \(MCP 2025-11-25\): 2 tools$/);
    await page.fill("#mcp-pages", "2");
    await page.click("#mcp-call");
    await page.waitForFunction(() => document.querySelector("#mcp-result").textContent === "built 2 pages", null, { timeout: 15000 });
    assert.equal(await text("#mcp-progress-label"), "2/2");
  } finally {
    page.off("request", record);
  }
  assert.equal(requests[0], "GET text/event-stream");
  assert.deepEqual(requests.slice(1), Array(4).fill("POST endpoint"), "initialize, initialized, tools/list, tools/call");
  assert.equal(await stat("mcp", "calls"), "6", "initialize, tools/list, tools/call in each session");
});

test("page ↔ server: a client id from the server's hub, a dropped connection survived by the session, a restart survived by a hand-over, pushes in the inspector", async () => {
  await page.waitForSelector('#ws-state[data-state="open"]', { timeout: 10000 });
  await page.click("#ws-whoami");
  await page.waitForSelector('#ws-result[data-state="ok"]');
  // Client ids name the hub process that holds the page's session (the demo runs two behind a round-robin proxy).
  const [, first] = (await text("#ws-result")).match(/^the server knows this page as (hub-\d+\/client-\d+)$/);
  assert.ok((await listItems("#ws-events")).some((item) => item.includes(`1 page connected (${first})`)), "the server pushed the clients");
  // A call in flight across a dropped connection: answered once, the same session and id.
  await page.click("#ws-drop");
  await page.waitForFunction(() => /across a dropped connection/.test(document.querySelector("#ws-result").textContent), null, { timeout: 15000 });
  assert.equal(await text("#ws-result"), "answered after 1500 ms, across a dropped connection: the same session");
  assert.ok((await listItems("#ws-events")).some((item) => item.includes("connection closed (1006)")));
  await page.waitForSelector('#ws-state[data-state="open"]');
  await page.click("#ws-whoami");
  await page.waitForFunction((first) => document.querySelector("#ws-result").textContent === `the server knows this page as ${first}`, first);
  await page.click("#ws-restart");
  await page.waitForFunction(() => [...document.querySelectorAll("#ws-events li")].filter((item) => item.textContent.includes("reconnected")).length >= 2,
    null, { timeout: 10000 });
  const events = await listItems("#ws-events");
  assert.ok(events.some((item) => item.includes("connection closed (1012)")), events.join("\n"));
  assert.ok(events.some((item) => /reconnecting: attempt 1 in \d+ ms/.test(item)));
  // The restarted process handed this page's session to the other one: the same id, and the session never ended.
  await page.waitForSelector('#ws-state[data-state="open"]');
  await page.click("#ws-whoami");
  await page.waitForFunction((first) => document.querySelector("#ws-result").textContent === `the server knows this page as ${first}`, first,
    { timeout: 10000 });
  assert.ok(!(await listItems("#ws-events")).some((item) => item.includes("forgot this page's session")), "the session never ended");
  const { response } = await lastCall("server", "out", "whoami");
  assert.equal(response.error, false);
  assert.ok((await rows()).some((row) => row.boundary === "server" && row.kind === "notification" && row.method === "clients"));
});

test("page ↔ service worker: calls answered by the worker, and after it is stopped and replaced, by the next one", async () => {
  await page.waitForSelector('#sw-state[data-state="open"]', { timeout: 15000 });
  await page.click("#sw-call");
  await page.waitForSelector('#sw-result[data-state="ok"]');
  const [, first] = (await text("#sw-result")).match(/^answered by worker (\w+) \(its call 1\)$/);
  await page.click("#sw-replace");
  await page.waitForFunction(() => [...document.querySelectorAll("#sw-events li")].some((item) => item.textContent.includes("connected to the next worker")),
    null, { timeout: 15000 });
  await page.waitForSelector('#sw-state[data-state="open"]');
  await page.click("#sw-call");
  await page.waitForFunction((first) => /^answered by worker \w+ \(its call 1\)$/.test(document.querySelector("#sw-result").textContent)
    && !document.querySelector("#sw-result").textContent.includes(first), first, { timeout: 10000 });
  const events = await listItems("#sw-events");
  assert.ok(events.some((item) => item.includes("the service worker stopped")), events.join("\n"));
  const { response } = await lastCall("sw", "out", "hello");
  assert.equal(response.error, false);
});

test("nothing logged an error and every request loaded", () => {
  assert.deepEqual(problems, []);
});
