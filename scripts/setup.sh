#!/usr/bin/env bash
# Installs everything the demo, the tests and the benchmark need, idempotently:
# the wasm target, wasm-bindgen's CLI and wasm-pack (pinned: the CLI must match
# Cargo.toml's wasm-bindgen exactly), Chromium and its driver, Firefox and geckodriver, Emacs (its jsonrpc.el drives the daemon),
# redis-server (the cluster tests start their own, one per test),
# and the npm tools (wasm-opt and vscode-jsonrpc among them).
# Safe to run again: each step is skipped when already done.
set -euo pipefail
cd "$(dirname "$0")/.."

GECKODRIVER_VERSION=0.37.1
# Must equal the `=` version of wasm-bindgen in Cargo.toml.
WASM_BINDGEN_VERSION=0.2.129
WASM_PACK_VERSION=0.15.1
export PATH="$HOME/.cargo/bin:$PATH"

step() { printf '\n== %s\n' "$*"; }

if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  step "rustup target add wasm32-unknown-unknown"
  rustup target add wasm32-unknown-unknown
fi

missing=()
command -v chromium >/dev/null || missing+=(chromium)
command -v chromedriver >/dev/null || missing+=(chromium-driver)
command -v firefox-esr >/dev/null || missing+=(firefox-esr)
command -v emacs >/dev/null || missing+=(emacs-nox)
command -v redis-server >/dev/null || missing+=(redis-server)
if [ "${#missing[@]}" -gt 0 ]; then
  step "apt-get install ${missing[*]}"
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

installed() { "$1" --version 2>/dev/null | grep -q "$2"; }
# wasm-pack uses the wasm-bindgen on PATH and downloads nothing when it is
# the crate's version (and wasm-opt is off in Cargo.toml: npm's binaryen runs after it).
if ! installed wasm-bindgen "$WASM_BINDGEN_VERSION"; then
  step "cargo install wasm-bindgen-cli $WASM_BINDGEN_VERSION (a few minutes)"
  cargo install wasm-bindgen-cli --version "$WASM_BINDGEN_VERSION" --locked --force
fi
if ! installed wasm-pack "$WASM_PACK_VERSION"; then
  step "cargo install wasm-pack $WASM_PACK_VERSION (a few minutes)"
  cargo install wasm-pack --version "$WASM_PACK_VERSION" --locked --force
fi
if ! installed geckodriver "$GECKODRIVER_VERSION"; then
  step "cargo install geckodriver $GECKODRIVER_VERSION (a few minutes)"
  cargo install geckodriver --version "$GECKODRIVER_VERSION" --locked --force
fi

if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  step "npm ci"
  # ZenFS's helper packages (utilium, @zenfs/streams) declare Node 22 for
  # their Node-only APIs; here they run in browsers (and in Node 20 with the
  # globals the tests give them), so npm's engine warning about them says
  # nothing true: those lines, and only those, are left out.
  npm ci --no-audit --no-fund 2> >(grep -v EBADENGINE >&2)
fi
# The newest OpenTelemetry API (1.10) and the SDK that takes it (3.x), a
# tree of its own (SDK 2, the root's, refuses API 1.10): the browser otel
# test runs on it too. SDK 3 declares Node 22 for its Node parts; the pages
# it is bundled into run in browsers, so that warning is left out as well.
if [ ! -f tests/otel-newest/node_modules/.package-lock.json ] \
  || [ tests/otel-newest/package-lock.json -nt tests/otel-newest/node_modules/.package-lock.json ]; then
  step "npm ci (tests/otel-newest)"
  npm ci --prefix tests/otel-newest --no-audit --no-fund 2> >(grep -v EBADENGINE >&2)
fi

# The Python servers of the interop tests (plain-ws, mcp) run in a venv of their own,
# with the pinned versions of tests/py/requirements.txt.
PYENV=target/pyenv
pinned_in_pyenv() {
  "$PYENV/bin/python" - tests/py/requirements.txt <<'PY' 2>/dev/null
import sys
from importlib.metadata import PackageNotFoundError, version

for line in open(sys.argv[1]):
    name, _, wanted = line.split("#")[0].strip().partition("==")
    if not name:
        continue
    try:
        if version(name) != wanted:
            sys.exit(1)
    except PackageNotFoundError:
        sys.exit(1)
PY
}
if ! "$PYENV/bin/python" -c '' 2>/dev/null; then
  step "python3 -m venv $PYENV"
  python3 -m venv --clear "$PYENV"
fi
if ! pinned_in_pyenv; then
  step "pip install -r tests/py/requirements.txt (into $PYENV)"
  "$PYENV/bin/python" -m pip install --quiet --disable-pip-version-check -r tests/py/requirements.txt
fi
