// The release build (wasm-pack --release, wasm-opt -Oz) loaded in Chromium
// through the demo page: parent ↔ preview iframe and main thread ↔ build
// worker, driven by clicks, with no console errors. Debug-only tests would
// miss release-only breakage (a bad wasm-opt, a stripped section).
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { startServer } from "../../scripts/serve.mjs";
import { launchChromium } from "./browser.mjs";

let server;
let browser;
let page;
const problems = [];

before(async () => {
  server = await startServer();
  browser = await launchChromium();
  page = await browser.newPage();
  page.on("console", (message) => message.type() === "error" && problems.push(message.text()));
  page.on("pageerror", (error) => problems.push(String(error)));
  await page.goto(server.url);
  await page.waitForSelector("#status.ready", { timeout: 15000 });
});

after(async () => {
  await browser?.close();
  await server?.close();
});

test("the preview iframe navigates on request and reports its route", async () => {
  await page.fill("#route", "/docs");
  await page.click("#navigate");
  await page.waitForFunction(() => document.querySelector("#preview-result").textContent.includes("/docs"));
  const body = await page.frameLocator("#preview").locator("#page").textContent();
  assert.match(body, /request, notify, method/);
});

test("a mistyped route is NAVIGATION_FAILED (-32006)", async () => {
  await page.fill("#route", "docs");
  await page.click("#navigate");
  await page.waitForFunction(() => document.querySelector("#preview-result").textContent.includes("-32006"));
  assert.equal(await page.getAttribute("#preview-result", "class"), "result error");
});

test("the build worker builds, reports progress and moves its output", async () => {
  await page.click("#build");
  await page.waitForFunction(() => document.querySelector("#build-result").textContent.includes("dist/greet.js"));
  const text = await page.textContent("#build-result");
  assert.match(text, /moved/);
  assert.ok(!text.includes("// say hello"), "comments stripped");
  assert.equal(await page.evaluate(() => document.querySelector("#progress").value), 1);
});

test("a syntax error is BUILD_FAILED (-32001)", async () => {
  await page.fill("#source", "function broken( {");
  await page.click("#build");
  await page.waitForFunction(() => document.querySelector("#build-result").textContent.includes("-32001"));
});

test("every call shows up in the message log and nothing logged an error", async () => {
  const rows = await page.locator("#log li").allTextContents();
  assert.ok(rows.some((row) => row.includes("navigate")), "navigate logged");
  assert.ok(rows.some((row) => row.includes("error -32006")), "error response logged");
  assert.ok(rows.some((row) => row.includes("buildProgress")), "notifications logged");
  await page.screenshot({ path: new URL("../../target/demo.png", import.meta.url).pathname });
  assert.deepEqual(problems, []);
});
