// The demo's real stack in headless Firefox, over WebDriver: esbuild-wasm in
// the build worker bundling the TSX project it reads through ZenFS (a
// MessageChannel of its own), the preview iframe running what was built, a
// syntax error shown as esbuild's diagnostic, and Ralph writing through ZenFS
// on the port its JSON-RPC peer uses, each protocol taking only its own messages.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { startServer } from "../../scripts/serve.mjs";
import { launchFirefox } from "./firefox.mjs";

let server;
let firefox;
let tab;

before(async () => {
  execFileSync(process.execPath, [new URL("../../scripts/build-demo.mjs", import.meta.url).pathname]);
  server = await startServer({ mcp: true });
  firefox = await launchFirefox();
  tab = await firefox.open(server.url);
});

after(async () => {
  await firefox?.close();
  await server?.close();
});

/**
 * Runs in the page: waits until `check()` is truthy, polling; when it times
 * out, the error says what it waited for and where the page stood (the
 * status, the build's result and output, the last messages of the inspector).
 */
const helpers = `
  const $ = (selector) => document.querySelector(selector);
  const until = async (check, ms = 60000) => {
    const end = Date.now() + ms;
    while (!check()) {
      if (Date.now() > end) {
        const texts = (selector) => [...document.querySelectorAll(selector)].map((node) => node.textContent.slice(0, 200));
        const state = {
          status: $("#status")?.className + ": " + $("#status")?.textContent,
          build: $("#build-result")?.dataset.state + ": " + $("#build-result")?.textContent,
          output: texts("#build-output li"),
          last: texts("li").slice(-12),
        };
        throw new Error("timed out waiting for " + check + " | " + JSON.stringify(state));
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };`;
const inPage = (body) => firefox.evaluate(tab, new Function(`return (async () => { ${helpers}\n${body} })`)());

test("Firefox: esbuild-wasm builds the project from ZenFS, and the preview runs the bundle", async () => {
  const result = await inPage(`
    await until(() => $("#status")?.classList.contains("ready"));
    $("#build").click();
    await until(() => ["ok", "error"].includes($("#build-result").dataset.state));
    await until(() => $("#preview").contentDocument?.querySelector("#app h1"));
    await until(() => [...document.querySelectorAll("#preview-events li")].some((li) => li.textContent.includes("built app rendered")));
    return {
      build: $("#build-result").textContent,
      app: $("#preview").contentDocument.querySelector("#app h1").textContent,
      events: [...document.querySelectorAll("#preview-events li")].map((li) => li.textContent),
    };`);
  assert.match(result.build, /^esbuild bundled 3 files into dist\/main\.js/);
  assert.equal(result.app, "hello, wiggum");
  assert.ok(result.events.includes("console.log built app rendered: hello, wiggum"));
});

test("Firefox: a syntax error is BUILD_FAILED with esbuild's diagnostic", async () => {
  const result = await inPage(`
    document.querySelector('#tabs [data-file="src/greeting.tsx"]').click();
    const source = $("#source");
    const original = source.value;
    source.value = original.replace("</h1>;", "</h1>");
    source.value = source.value.slice(0, source.value.lastIndexOf("}"));
    source.dispatchEvent(new Event("input"));
    $("#build").click();
    await until(() => $("#build-result").dataset.state === "error");
    const shown = [...document.querySelectorAll("#build-output li")].map((li) => li.textContent);
    const error = $("#build-result").textContent;
    source.value = original;
    source.dispatchEvent(new Event("input"));
    return { error, shown };`);
  assert.match(result.error, /^-32001 BUILD_FAILED: Build failed: 1 error/);
  assert.equal(result.shown.length, 1);
  assert.match(result.shown[0], /^src\/greeting\.tsx:\d+:\d+ /);
});

test("Firefox: Ralph writes through ZenFS on the port its peer uses; neither protocol sees the other's messages", async () => {
  const result = await inPage(`
    $("#task").value = "0";
    $("#send-task").click();
    await until(() => !$("#allow").disabled);
    $("#allow").click();
    await until(() => ["ok", "error"].includes($("#task-result").dataset.state));
    return {
      task: $("#task-result").textContent,
      written: await window.demoFs.promises.readFile("/project/ralph/src/App.tsx", "utf8"),
      jsonrpc: Number($("#shared-port").dataset.jsonrpc),
      zenfs: Number($("#shared-port").dataset.zenfs),
    };`);
  assert.match(result.task, /^task-\d+ done in \d+ ms: wrote \/project\/ralph\/src\/App\.tsx/);
  assert.equal(result.written, "// Add a dark-mode toggle (task-1)\n");
  assert.ok(result.jsonrpc > 0 && result.zenfs > 0, JSON.stringify(result));
});
