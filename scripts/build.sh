#!/usr/bin/env bash
# Builds the package with wasm-pack (release, wasm-opt -Oz from npm's binaryen):
#   scripts/build.sh          pkg-web/  (--target web: the demo, tests, benchmark)
#   scripts/build.sh bundler  pkg/      (--target bundler: the npm package, with
#                                        its Node and no-bundler builds in pkg/node/ and pkg/web/)
# Every build has the whole protocol in its one module (src/core, src/bindings,
# and the JS it links: js/module/glue.js, js/transports/postmessage.js); each
# subpath entry (js/entries, js/transports: subpath-entries.mjs) is one file
# beside the glue, outside the module's imports. The Node build also has
# Content-Length framing (`wiggum-rpc/framing`).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/node_modules/.bin:$HOME/.cargo/bin:$PATH"
target="${1:-web}"
case "$target" in
  web) out=pkg-web ;;
  bundler) out=pkg ;;
  *) echo "usage: scripts/build.sh [web|bundler]" >&2; exit 2 ;;
esac
# no_std with a trapping panic handler: std's panic and formatting machinery
# out of the module (see src/lib.rs).
export RUSTFLAGS="${RUSTFLAGS:-} --cfg wiggum_no_std"

# wasm-pack build --release --target <target> --out-dir <dir> [-- cargo args],
# then the subpath entries' sources beside the glue, then short names and
# minified JS (see slim-package.mjs). wasm-pack warns that it "failed to get
# wasm-pack version": an update check that cannot reach its server; harmless.
build() {
  local wasm_target=$1 dir=$2
  shift 2
  rm -rf "$dir"
  wasm-pack build --release --target "$wasm_target" --out-dir "$dir" "$@"
  # wasm-pack's own output, its snippets in files of their own: two imports
  # of its entry share them (tests/js/instances.test.mjs loads it twice).
  if [ "$dir" = pkg-web ]; then rm -rf target/pkg-web-unslimmed && mkdir -p target && cp -r "$dir" target/pkg-web-unslimmed; fi
  if [ "$wasm_target" != bundler ]; then node scripts/share-module.mjs "$dir"; fi
  if [ "$wasm_target" = web ]; then node scripts/wasm-refused.mjs web "$dir"; fi
  if [ "$wasm_target" != nodejs ]; then
    node scripts/subpath-entries.mjs "$dir" esm
    node scripts/slim-package.mjs "$dir"
  fi
  if [ "$wasm_target" = bundler ]; then node scripts/wasm-refused.mjs bundler "$dir"; fi
  if [ "$wasm_target" = web ]; then node scripts/share-module.mjs --stamp "$dir"; fi
}

if [ "$target" = web ]; then
  build web pkg-web
  exit 0
fi
# The npm package serves Node and browsers without a bundler too (see
# package-entries.mjs).
build bundler pkg
build nodejs target/pkg-node -- --features framing
build web target/pkg-web-nobundler
node scripts/package-entries.mjs pkg target/pkg-node target/pkg-web-nobundler
