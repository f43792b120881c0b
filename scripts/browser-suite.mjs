// Runs the browser suite (every scenario of tests/browser/harness.js) in
// headless Chromium or Firefox, on the web build (pkg-web/, built first:
// `bash scripts/build.sh`) served with the repository:
//
//   node scripts/browser-suite.mjs chromium|firefox [name filter]
//
// Each scenario runs by name in a fresh page of its own (a real
// MessageChannel, Worker, iframe, sandboxed iframe); a failure prints its
// stack (with its message, which Firefox's stacks leave out). Exits non-zero if any failed.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { startServer } from "./serve.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const [browser, filter = ""] = process.argv.slice(2);
if (browser !== "chromium" && browser !== "firefox") {
  console.error("usage: node scripts/browser-suite.mjs chromium|firefox [name filter]");
  process.exit(2);
}

/** The scenarios, in the order they run. */
export const SCENARIOS = [
  "port_round_trip_results_and_errors",
  "port_notifications",
  "port_invalid_messages_get_spec_answers",
  "port_foreign_traffic_is_left_alone",
  "peer_both_directions_and_shared_transport",
  "burst_of_calls_goes_out_as_one_batch",
  "a_slow_handler_does_not_hold_back_its_batch",
  "server_batch_policy",
  "timeouts",
  "destroy_rejects_pending_and_removes_listeners",
  "abort",
  "handler_signal_fires_on_cancel_and_destroy",
  "remote_proxy_and_exposed_objects",
  "streamed_results_chunks_then_answer",
  "streamed_results_on_the_wire",
  "introspection_lists_and_describes_methods",
  "a_schema_checks_params_in_the_browser",
  "port_structured_clone_passthrough_and_transfer",
  "uncloneable_result_fails_that_call_only",
  "text_transport_gets_json_text",
  "worker_round_trip_passthrough_transfer",
  "worker_startup_race_loses_nothing",
  "progress_keeps_a_long_call_alive",
  "errors_arrive_whole",
  "iframe_same_origin",
  "iframe_sandboxed_opaque_origin",
  "window_origin_and_source_checks_refuse_others",
  "reference_server_on_a_port_answers_several_calls_per_turn",
  "reference_client_on_a_port_calls_our_server",
  "reference_worker_both_directions",
  "reference_frame_both_directions",
  "odd_ids_are_refused_and_thrown_codes_kept",
];

// The core's error codes (`code::ALL` in src/core/error.rs), which the JS `ErrorCode` must list alike.
const errors = readFileSync(join(root, "src/core/error.rs"), "utf8");
const all = errors.slice(errors.indexOf("pub const ALL: &[(&str, i64)] = &["));
const codes = Object.fromEntries(
  [...all.slice(0, all.indexOf("];")).matchAll(/\("([A-Z_]+)", (\w+)\)/g)].map(([, name, constant]) => {
    const value = errors.match(new RegExp(`pub const ${constant}: i64 = (-?\\d+);`))?.[1];
    return [name, Number(value)];
  }),
);

const server = await startServer({ mounts: [["/pkg/", join(root, "pkg-web")], ["/", root]] });
const page = `${server.url}tests/browser/suite.html`;

// Runs `fn(...args)` (an async function) in a fresh page; resolves with its result.
let evaluate;
let close;
if (browser === "chromium") {
  const { launchChromium } = await import("../tests/js/browser.mjs");
  const chromium = await launchChromium();
  evaluate = async (fn, ...args) => {
    const tab = await chromium.newPage();
    try {
      await tab.goto(page);
      return await tab.evaluate(([source, args]) => (0, eval)(source)(...args), [String(fn), args]);
    } finally {
      await tab.close();
    }
  };
  close = () => chromium.close();
} else {
  const { launchFirefox } = await import("../tests/js/firefox.mjs");
  const firefox = await launchFirefox();
  const first = await firefox.open(page);
  evaluate = async (fn, ...args) => {
    const tab = await firefox.newTab(page);
    try {
      return await firefox.evaluate(tab, fn, ...args);
    } finally {
      await firefox.closeTab(tab);
    }
  };
  close = async () => {
    await firefox.closeTab(first).catch(() => {});
    await firefox.close();
  };
}

// A scenario runs in the page's own realm, from a module script the page
// runs (a WebDriver script in Firefox runs in a sandbox of its own, whose
// Uint8Array is not the page's); its outcome comes back as an event.
const inPage = async (code) =>
  new Promise((resolve, reject) => {
    const id = `suite-${Math.random()}`;
    document.addEventListener(id, ({ detail }) => (detail.error === undefined ? resolve(detail.value) : reject(new Error(detail.error))), { once: true });
    const script = document.createElement("script");
    script.type = "module";
    script.textContent = `const done = (detail) => document.dispatchEvent(new CustomEvent(${JSON.stringify(id)}, { detail }));
      (async () => { ${code} })().then((value) => done({ value }), (error) => done({ error: error instanceof Error && !String(error.stack).includes(error.message) ? \`\${error.name}: \${error.message}\n\${error.stack}\` : String(error?.stack ?? error) }));`;
    document.head.append(script);
  });
const scenario = (name) => `await (await import("/tests/browser/harness.js")).scenario(${JSON.stringify(name)});`;
const errorCodes = (names) => `const { errorCode } = await import("/tests/browser/harness.js");
  const found = {};
  for (const name of ${JSON.stringify(names)}) found[name] = await errorCode(name);
  return JSON.stringify(found);`;

let failed = 0;
let ran = 0;
const started = Date.now();
for (const name of [...SCENARIOS, "js_error_codes_match_the_core"]) {
  if (!name.includes(filter)) continue;
  ran += 1;
  const at = Date.now();
  try {
    if (name === "js_error_codes_match_the_core") {
      const found = JSON.parse(await evaluate(inPage, errorCodes(Object.keys(codes))));
      for (const [code, value] of Object.entries(codes)) {
        if (found[code] !== value) throw new Error(`ErrorCode.${code}: expected ${value}, got ${found[code]}`);
      }
    } else await evaluate(inPage, scenario(name));
    console.log(`ok ${name} (${Date.now() - at} ms)`);
  } catch (error) {
    failed += 1;
    console.log(`FAILED ${name} (${Date.now() - at} ms)\n  ${String(error?.message ?? error).replaceAll("\n", "\n  ")}`);
  }
}
await close();
await server.close();
console.log(`${browser}: ${ran - failed} of ${ran} scenarios passed in ${((Date.now() - started) / 1000).toFixed(1)} s`);
process.exit(failed === 0 && ran > 0 ? 0 : 1);
