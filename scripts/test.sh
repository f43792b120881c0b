#!/usr/bin/env bash
# Runs every test of wiggum-rpc, set-up included (idempotent):
# formatting and lints, the native core tests, the browser suite in headless
# Chromium and Firefox, the release build in Chromium (demo page), the npm
# import path, the docs site and its examples, and the benchmark in smoke mode. Exits non-zero if any failed.
#
#   bash scripts/test.sh          the suite
#   LOAD=2 bash scripts/test.sh   the suite on a busy machine: two busy loops run beside it
#                                 (started after set-up, stopped when the suite ends)
set -uo pipefail
cd "$(dirname "$0")/.."

bash scripts/setup.sh || { echo "set-up failed"; exit 1; }
export PATH="$PWD/node_modules/.bin:$HOME/.cargo/bin:$PATH"

# Every bound a test holds must hold on a loaded machine, as a newcomer's
# laptop is: LOAD=N runs N processes that spin for as long as the suite does.
loads=()
stop_loads() { [ "${#loads[@]}" -eq 0 ] || kill "${loads[@]}" 2>/dev/null; }
trap stop_loads EXIT
if [ "${LOAD:-0}" -gt 0 ]; then
  for _ in $(seq "$LOAD"); do
    node -e 'for (;;);' &
    loads+=($!)
  done
  printf '\n== under load: %s busy loops beside the suite\n' "$LOAD"
fi

passed=0
failed=0
failures=()
run() {
  local name=$1
  shift
  printf '\n== %s\n' "$name"
  if "$@"; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    failures+=("$name")
  fi
}

run "cargo fmt --check (the workspace)" cargo fmt --all --check
run "clippy, native" cargo clippy --all-targets --all-features -- -D warnings
run "the bindings' test glue (target/bindings-test/glue.js: a wasm-bindgen snippet the bindings-test feature imports)" node scripts/bindings-test-glue.mjs
# On wasm32 with the features of the package's plain flavour (it leaves
# `references` out: see scripts/build.sh), then with every feature (its references flavour).
run "clippy, wasm32" cargo clippy --target wasm32-unknown-unknown --all-targets --features framing -- -D warnings
run "clippy, wasm32, the package's no_std build" \
  env RUSTFLAGS="--cfg wiggum_no_std" cargo clippy --target wasm32-unknown-unknown --lib --features framing -- -D warnings
run "clippy, wasm32, the bindings with references" \
  cargo clippy --target wasm32-unknown-unknown --lib --all-features -- -D warnings
run "clippy, wasm32, the no_std build with references" \
  env RUSTFLAGS="--cfg wiggum_no_std" cargo clippy --target wasm32-unknown-unknown --lib --all-features -- -D warnings
run "clippy, wasm32, the Rust API (wiggum-rpc-web) and the interop tests' Rust app" \
  cargo clippy --target wasm32-unknown-unknown --all-targets -p wiggum-rpc-web -p rust-app -- -D warnings
run "protocol core, framing and the duet-rpc daemon, native (spec examples, property tests, daemon over pipes)" cargo test --features references,handoff
run "duet-rpc driven by Emacs jsonrpc.el" \
  env DUET_RPC_BIN=target/debug/duet-rpc DUET_RPC_VERSION="$(cargo pkgid | sed 's/.*[#@]//')" \
  emacs --batch -Q -l tests/emacs/duet-rpc-test.el
run "duet-rpc driven by vscode-jsonrpc" node --test tests/js/vscode-jsonrpc.test.mjs
run "release build, web target (pkg-web/)" bash scripts/build.sh web
run "release build, Node (target/pkg-node/: the demo's server processes)" bash scripts/build.sh node
run "the bindings in headless Chromium and Firefox (wasm-pack test . --features bindings-test --lib: the numeric ABI under the package's glue, a call and its handles, calls in flight in one batch, a stranger's bad input)" \
  sh -c 'wasm-pack test --headless --chrome --firefox --chromedriver "$(command -v chromedriver)" --geckodriver "$(command -v geckodriver)" . --features bindings-test --lib'
run "the Rust API in headless Chromium and Firefox (wasm-pack test crates/wiggum-rpc-web: two Peers on a MessageChannel, the wire a stranger sees, bad input, transfer lists, cancellation, timeouts, the other side's end)" \
  wasm-pack test --headless --chrome --firefox --chromedriver "$(command -v chromedriver)" --geckodriver "$(command -v geckodriver)" crates/wiggum-rpc-web
run "a Rust app on the Rust API for the interop suite (wasm-pack build tests/rust-app --target web)" \
  wasm-pack --quiet build tests/rust-app --dev --target web --out-dir ../../target/rust-app-pkg --no-typescript --no-pack
run "the Rust API meeting the npm package and a stranger in Chromium and Firefox: a Rust page and a JS worker, a JS page and a Rust worker, a Rust page and a JS iframe, a Rust page toward json-rpc-2.0; the From Rust guide's example" \
  node --test tests/js/rust-interop.test.mjs
run "browser suite in headless Chromium (every scenario of tests/browser/harness.js on pkg-web/)" node scripts/browser-suite.mjs chromium
run "browser suite in headless Firefox" node scripts/browser-suite.mjs firefox
run "a pool of workers in Chromium and Firefox: four workers, one terminated mid-call, a crash, all at once, cancel, notify all or one, a retried call, a factory that throws, a worker that never loads, 32 workers; calls waiting for the first worker free (aborted or timed out while waiting: never sent), a worker stuck in a loop ended and replaced, workers terminated while they load" \
  node --test tests/js/pool.test.mjs
run "the other side's end noticed in Chromium and Firefox: a worker terminated, a port's other side destroyed, the worker's own Peer destroyed, an iframe removed or navigated away (CONNECTION_CLOSED within a second); a port closed by hand instead tells nothing (its call ends at its timeout)" \
  node --test tests/js/peer-gone.test.mjs
run "the module hand-off in Chromium and Firefox: a worker loading the package takes its page's compiled module, or fetches its own from a page that is not wiggum-rpc; another build's question goes unanswered" \
  node --test tests/js/module-handoff.test.mjs
run "instances of the module side by side in one page, in Chromium and Firefox: 24 imports of the entry under other URLs, each running the method a call names" \
  node --test tests/js/instances.test.mjs
run "release build in Chromium: the demo page (esbuild-wasm in the build worker, the preview running its bundle, ZenFS beside the RPC)" node --test tests/js/demo.test.mjs
run "release build in Firefox: the demo's real stack (esbuild-wasm build from ZenFS, the preview running it, ZenFS on Ralph's port)" \
  node --test tests/js/firefox-demo.test.mjs
run "the demo's bundling with esbuild-wasm in Node: TSX from memory and from ZenFS; a syntax error, a missing import, a cycle, 5 MB, an empty project" \
  node --test tests/js/demo-build.test.mjs
run "release build in Chromium: endpoint lifetime across garbage collection" node --test tests/js/lifetime.test.mjs
run "release build in Chromium: a million calls, memory flat; 10,000 in flight" node --test tests/js/memory.test.mjs
run "the package's declarations where they are written (js/types, js/entries, js/transports; tsc --strict)" \
  tsc -p js/tsconfig.json
run "types of the web build: remote<API>(), expose, stream, webSocketTransport, events (tsc --strict)" \
  tsc -p tests/types/tsconfig.json
run "npm package: bundler build at the root, Node and no-bundler builds, subpath entries (pkg/)" bash scripts/build.sh bundler
run "the size budget: what a page pays for each npm entry (esbuild, minified, gzip -9) within tests/size-budget.json" \
  node --test tests/js/size-budget.test.mjs
run "a port handed to a bundled worker before its code runs, in Chromium and Firefox: held while the package loads, dispatched again once the worker listens (the call answered, the page's other messages once each)" \
  node --test tests/js/port-handoff.test.mjs
run "a page's Content-Security-Policy in Chromium and Firefox: without 'wasm-unsafe-eval', init() and a bundle's import fail saying what to add and where; with it, both load" \
  node --test tests/js/csp.test.mjs
run "npm import path: pack, install, tsc (bundler, node16) over every entry, esbuild + Chromium, no bundler (wiggum-rpc/web), Node require and import, publint, attw" node --test tests/js/npm-import.test.mjs
run "npm package through Vite 8 (build and dev server) and webpack 5 in Chromium; two copies built by different bundlers meeting on the wire; wiggum-rpc/web's compiled module handed to a Vite-built worker" \
  node --test tests/js/bundlers.test.mjs
run "docs: the API reference generated, the benchmark's charts drawn, the VitePress site built (dead links fail), every example of the README and the docs type-checked and the runnable ones run (Node; Vite + Chromium)" \
  node --test tests/js/docs.test.mjs
run "MCP over Streamable HTTP and the older HTTP+SSE: the TypeScript SDK's servers, from Node and Chromium (sessions, SSE, resumption, cancellation both ways, HTTP errors; the fallback on a 4xx, the endpoint's origin, a stream's end failing its calls)" \
  node --test tests/js/mcp.test.mjs tests/js/mcp-sse.test.mjs
run "Node: the root entry alone, then each capability entry imported (trace, contracts, introspection)" node --test tests/js/entries.test.mjs
run "Node: functions and objects by reference between Peers, on the package's references flavour (callbacks, objects, stubs passed back, strangers, destroy, release, leaks)" \
  node --test tests/js/references.test.mjs
run "functions and objects by reference across a Worker in Chromium and Firefox (wiggum-rpc/references/web): a callback called back 10,000 times then released, 64 in flight, a live object, a stub given back, a worker terminated, a pool's stubs bound to their workers, an iframe over windowTransport" \
  node --test tests/js/references-browser.test.mjs
run "functions and objects by reference over WebSocket sessions (Node, a hub): stubs on both sides survive a socket killed and resumed; a session past its grace fails them all and empties both tables" \
  node --test tests/js/references-sessions.test.mjs
run "Node: worker_threads under the postMessage transports (workerTransport and portTransport on a Worker, selfTransport and portTransport(parentPort) inside it, a transferred MessagePort; a worker terminated or a port closed fails the waiting call with CONNECTION_CLOSED at once)" \
  node --test tests/js/node-workers.test.mjs
run "Node: every call's context (wiggum-rpc/middleware): a hub's auth middleware, middleware and interceptors in order around a result and an error, a caller's deadline as a worker's signal, a call retried after a dropped socket answered once by its idempotency key, a method with schemas through middleware, a stranger's bad metadata, json-rpc-2.0 and vscode-jsonrpc getting no metadata" \
  node --test tests/js/context.test.mjs
run "Node: OpenTelemetry (wiggum-rpc/otel): page → worker → WebSocket → hub → another client as one trace, each span the child of the one before, the JSON-RPC attributes and a failed call's error code" \
  node --test tests/js/otel.test.mjs
run "OpenTelemetry in Chromium and Firefox (wiggum-rpc/otel on the web SDK, API 1.9 with SDK 2 and API 1.10 with SDK 3): a page → its worker → WebSocket → a Node hub → another client as one trace" \
  node --test tests/js/otel-browser.test.mjs
run "Node: the hooks a transport may offer (idle, settled and undelivered)" node --test tests/js/transport-hooks.test.mjs
run "Node: a MessagePort shared with ZenFS's Port backend (both at full load; closePort: false leaves the port open, the default closes it)" \
  node --test tests/js/shared-port.test.mjs
run "Node: streams with flow control (a producer within a window of a reader 1,000× slower, a ReadableStream cancelled, a stranger's plain chunks)" \
  node --test tests/js/stream-credit.test.mjs
run "Node: the framing codec, a client driving duet-rpc over stdio, Peers over MessageChannel" node --test tests/js/node-framing.test.mjs
run "Node: schema-checked methods (zod, valibot, hand-written), rpc.discover against the OpenRPC meta-schema, the trace hook" \
  node --test tests/js/contracts.test.mjs
run "Node: json-rpc-2.0 on the other side of a MessageChannel (a stranger: no batches toward it, one array per batch from it)" \
  node --test tests/js/strangers.test.mjs
run "WebSocket: Chromium and Node peers over real sockets (reconnect, streaming, faults)" node --test tests/js/websocket.test.mjs
run "WebSocket hub: one server for many clients (Node and Chromium clients, call-all, drops, 200 clients coming and going)" \
  node --test tests/js/hub.test.mjs
run "A hub across processes on Redis (a redis-server and hub processes per test): calls to a client of another process, notifications to all from two at once, a process killed mid-call, a death seen within the lease and a pause that evicts nobody, Redis stopped and started again, Redis stalled, a 9 MB notification, 1,000 clients leaving at once" \
  node --test tests/js/cluster.test.mjs
run "Sessions that move between the processes of a hub on Redis (three processes behind a TCP proxy that cuts and moves the client): its id, its call and the pushes made while away kept; calls cut and resent run once; two connections claiming one session; the process holding it killed; Redis restarted while relayed; a rolling restart that ends sessions, and one that hands them over; a handler that outlasts the hand-over" \
  node --test tests/js/cluster-sessions.test.mjs
run "Node: a server Peer's session handed to another Peer as JSON text (its call in flight, pushes made while away, calls after), and handed sessions that are not one refused" \
  node --test tests/js/peer-handoff.test.mjs
run "WebSocket sessions that survive: a build, notifications and a stream across killed sockets, kills during the reconnect, a restarted server, a grace run out, another's session id, strangers, the bound" \
  node --test tests/js/sessions.test.mjs
run "A hostile client against a hub (2,000 random frames, a million-request batch frame) while ten others call" \
  node --test tests/js/hostile.test.mjs
run "BroadcastChannel, SharedWorker and service-worker hubs in Chromium (two pages and a worker on one channel; pages on one SharedWorker, one closing; a service worker stopped mid-call)" \
  node --test tests/js/broadcast.test.mjs
run "BroadcastChannel, SharedWorker and service-worker hubs in headless Firefox, over WebDriver (geckodriver)" \
  node --test tests/js/firefox-hub.test.mjs
run "WebSocket: interop with jrpc-oo's JRPCServer" node --test tests/js/jrpc-oo.test.mjs
run "WebSocket: interop with a Python JSON-RPC server (websockets + jsonrpcserver)" node --test tests/js/plain-ws.test.mjs
run "benchmark, smoke mode" node bench/run.mjs --smoke
run "benchmark of a hub across processes on Redis, smoke mode" node bench/cluster.mjs --smoke

echo
echo "demo screenshots: target/demo.png, target/demo-build.png (a real build, the preview running it), target/demo-diagnostic.png; the docs' benchmark page: target/docs-benchmark.png"
for name in "${failures[@]}"; do echo "FAILED: $name"; done
echo "suites: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
