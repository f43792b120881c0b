// The Rust API (crates/wiggum-rpc-web) meeting the npm package and a
// stranger in Chromium and Firefox: a Rust page ↔ a JS worker, a JS page ↔
// a Rust worker, a Rust page ↔ a JS iframe, a Rust page ↔ json-rpc-2.0. The
// Rust side is tests/rust-app, built by `wasm-pack build --target web` into
// target/rust-app-pkg/ (scripts/test.sh does it before this suite); the JS
// side is the web build (pkg-web/) and tests/js/pages/rust-*.js.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { build } from "esbuild";
import { pagesInBothBrowsers } from "./browser.mjs";

const root = new URL("../..", import.meta.url).pathname;
const rustApp = join(root, "target/rust-app-pkg");
const stranger = join(root, "target/rust-interop");

let browsers;
before(async () => {
  assert.ok(existsSync(join(rustApp, "rust_app.js")), "build the Rust app first: wasm-pack build tests/rust-app --dev --target web --out-dir ../../target/rust-app-pkg");
  mkdirSync(stranger, { recursive: true });
  await build({
    stdin: { contents: 'export { JSONRPCClient, JSONRPCErrorException, JSONRPCServer, JSONRPCServerAndClient } from "json-rpc-2.0";', resolveDir: root },
    bundle: true,
    format: "esm",
    outfile: join(stranger, "json-rpc-2.0.js"),
    logLevel: "silent",
  });
  browsers = await pagesInBothBrowsers("pkg-web", [["/rust/", rustApp], ["/stranger/", stranger]]);
});
after(() => browsers?.close());

const error = (code) => ({ code });
const codeOf = (reported) => ({ code: reported?.code });

/** What a Rust side reports of calling the JS side (`callJsSide` in tests/rust-app). */
function checkRustCalledJs(browser, called) {
  assert.equal(called.sum, 5, `${browser}: a typed call`);
  assert.deepEqual(called.failed, { code: -32001, message: "build failed", data: { errors: 1 } }, `${browser}: a domain error with its data`);
  assert.equal(called.echoedBlob, true, `${browser}: a Blob there and back`);
  assert.deepEqual(codeOf(called.missing), error(-32601));
  assert.deepEqual(codeOf(called.timedOut), error(-32099));
}

/** What a JS side reports of calling the Rust side back (`callBack`). */
function checkJsCalledRust(browser, back) {
  assert.equal(back.sum, 42, `${browser}: the JS side's call of a Rust method`);
  assert.deepEqual(back.failed, { code: -32002, message: "gate failed", data: ["lint"] }, `${browser}: a Rust Error with data, in JS`);
  assert.deepEqual(back.blob, [true, true, 7], `${browser}: a Blob reaches the Rust handler as a Blob and comes back`);
  assert.equal(back.badParams.code, -32602, `${browser}: params serde cannot read are -32602`);
}

test("the From Rust guide shows its example as the file the suite runs", () => {
  const guide = readFileSync(join(root, "docs/guide/rust.md"), "utf8");
  const fence = guide.match(/```rust\n([\s\S]*?)```/)?.[1];
  assert.equal(fence, readFileSync(join(root, "tests/rust-app/src/example.rs"), "utf8"));
});

for (const browser of ["Chromium", "Firefox"]) {
  test(`${browser}: the From Rust guide's example, a Rust page asking a Rust worker`, async () => {
    const shown = await browsers.run(browser, "/rust-interop.js", "guideExample");
    assert.equal(shown, "2 + 3 = 5; sqrt(-1): sqrt of a negative number (-32602)");
  });

  test(`${browser}: a Rust page and a JS worker call each other; the worker's end fails the waiting call at once`, async () => {
    const report = await browsers.run(browser, "/rust-interop.js", "rustPageJsWorker");
    console.log(browser, JSON.stringify(report));
    checkRustCalledJs(browser, report.called);
    checkJsCalledRust(browser, report.back);
    assert.equal(report.gone.code, -32095, `${browser}: CONNECTION_CLOSED`);
    assert.ok(report.goneMs < 1000, `${browser}: within a second (${report.goneMs} ms)`);
  });

  test(`${browser}: a JS page calls a Rust worker at once, while its module still loads`, async () => {
    const report = await browsers.run(browser, "/rust-interop.js", "jsPageRustWorker");
    console.log(browser, JSON.stringify(report));
    assert.equal(report.sum, 5);
    assert.deepEqual(report.failed, { code: -32002, message: "gate failed", data: ["lint"] });
    assert.deepEqual(report.blob, [true, true, 7]);
    assert.equal(report.badParams.code, -32602);
    assert.equal(report.missing.code, -32601);
    assert.equal(report.gone.code, -32095, `${browser}: the Rust worker's end noticed (its presence)`);
    assert.ok(report.goneMs < 1000, `${browser}: within a second (${report.goneMs} ms)`);
  });

  test(`${browser}: a Rust page and a JS iframe still loading call each other`, async () => {
    const report = await browsers.run(browser, "/rust-interop.js", "rustPageJsFrame");
    console.log(browser, JSON.stringify(report));
    checkRustCalledJs(browser, report.called);
    checkJsCalledRust(browser, report.back);
  });

  test(`${browser}: a Rust page toward json-rpc-2.0 sends plain JSON-RPC, one message per call`, async () => {
    const { report, received } = await browsers.run(browser, "/rust-interop.js", "rustTowardStranger");
    console.log(browser, JSON.stringify(report), JSON.stringify(received));
    assert.deepEqual(report.sums, [3, 7]);
    assert.deepEqual(report.failed, { code: -32002, message: "gate failed", data: ["lint"] });
    assert.deepEqual(report.back, { sum: 11 });
    assert.ok(received.every((message) => !Array.isArray(message)), `${browser}: no batch toward a peer that never offered them`);
    const calls = received.filter((message) => message.id !== undefined && message.method !== undefined);
    assert.equal(calls.length, 4, `${browser}: add, add, fail, callBack`);
    // Plain JSON-RPC: nothing beyond the spec's members (a call without params has none).
    for (const call of calls) assert.ok(Object.keys(call).every((key) => ["id", "jsonrpc", "method", "params"].includes(key)), JSON.stringify(call));
    assert.deepEqual(received.filter((message) => message.method !== undefined && message.id === undefined).map((m) => m.method), ["$/ready"], `${browser}: the hello is the only notification`);
  });
}
