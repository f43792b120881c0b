#!/usr/bin/env bash
# Builds the package with wasm-pack (release, wasm-opt -Oz from npm's binaryen):
#   scripts/build.sh          pkg-web/  (--target web: the demo, tests, benchmark)
#   scripts/build.sh bundler  pkg/      (--target bundler: the npm package, with its Node and no-bundler builds in pkg/node/ and pkg/web/)
#   scripts/build.sh full     pkg-full/ (--target web, every feature but framing: WebSocket tests)
#   scripts/build.sh node     pkg-node/ (--target nodejs, every feature)
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/node_modules/.bin:$HOME/.cargo/bin:$PATH"
target="${1:-web}"
features=()
case "$target" in
  web) out=pkg-web ;;
  bundler) out=pkg ;;
  full) out=pkg-full target=web features=(-- --features websocket,streaming,remote,introspection) ;;
  node) out=pkg-node target=nodejs features=(-- --features framing,websocket,streaming,remote,introspection) ;;
  *) echo "usage: scripts/build.sh [web|bundler|full|node]" >&2; exit 2 ;;
esac
rm -rf "$out"
# no_std with a trapping panic handler: std's panic and formatting machinery
# out of the module (see src/lib.rs).
export RUSTFLAGS="${RUSTFLAGS:-} --cfg wiggum_no_std"
# wasm-pack warns that it "failed to get wasm-pack version": an update check
# that cannot reach its server; harmless.
wasm-pack build --release --target "$target" --out-dir "$out" "${features[@]}"
# Short names between the module and its glue, and the JS minified with
# source maps (see the script). The commented sources are src/wasm/*.js; the
# .d.ts files carry the types.
if [ "$target" != nodejs ]; then
  node scripts/slim-package.mjs "$out"
fi
# The npm package serves Node and browsers without a bundler too: the same
# features built for each, in pkg/node/ and pkg/web/ (see the script).
if [ "$out" = pkg ]; then
  node_build=target/pkg-node-default
  web_build=target/pkg-web-default
  rm -rf "$node_build" "$web_build"
  wasm-pack build --release --target nodejs --out-dir "$node_build"
  wasm-pack build --release --target web --out-dir "$web_build"
  node scripts/slim-package.mjs "$web_build"
  node scripts/package-entries.mjs pkg "$node_build" "$web_build"
fi
