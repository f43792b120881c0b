#!/usr/bin/env bash
# Runs every test of wiggum-rpc, set-up included (idempotent):
# formatting and lints, the native core tests, the browser suite in headless
# Chromium and Firefox, the release build in Chromium (demo page), the npm
# import path, and the benchmark in smoke mode. Exits non-zero if any failed.
set -uo pipefail
cd "$(dirname "$0")/.."

bash scripts/setup.sh || { echo "set-up failed"; exit 1; }
export PATH="$PWD/node_modules/.bin:$HOME/.cargo/bin:$PATH"
export WASM_BINDGEN_TEST_TIMEOUT=180

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

run "cargo fmt --check" cargo fmt --check
run "clippy, native" cargo clippy --all-targets -- -D warnings
run "clippy, wasm32" cargo clippy --target wasm32-unknown-unknown --all-targets -- -D warnings
run "protocol core, native (spec examples, rules, property tests)" cargo test
run "browser suite in headless Chromium" \
  env -u GECKODRIVER CHROMEDRIVER=/usr/bin/chromedriver cargo test --target wasm32-unknown-unknown --lib
run "browser suite in headless Firefox" \
  env -u CHROMEDRIVER GECKODRIVER="$HOME/.cargo/bin/geckodriver" cargo test --target wasm32-unknown-unknown --lib
run "release build, web target (pkg-web/)" bash scripts/build.sh web
run "release build in Chromium: the demo page" node --test tests/js/demo.test.mjs
run "release build in Chromium: endpoint lifetime across garbage collection" node --test tests/js/lifetime.test.mjs
run "npm package, bundler target (pkg/)" bash scripts/build.sh bundler
run "npm import path: pack, install, tsc, esbuild, Chromium" node --test tests/js/npm-import.test.mjs
run "benchmark, smoke mode" node bench/run.mjs --smoke

echo
echo "demo screenshot: target/demo.png"
for name in "${failures[@]}"; do echo "FAILED: $name"; done
echo "suites: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
