#!/usr/bin/env bash
# Builds the package: the core and its binding (src/bindings) for wasm32
# with `wasm-pack build` (cargo, then wasm-bindgen: the .wasm and
# wasm-bindgen's glue for its imports), wasm-opt (npm's binaryen, with
# Cargo.toml's flags), then the package's JS per target (scripts/glue.mjs:
# wasm-bindgen's glue bundled with ours from js/module/):
#   scripts/build.sh          pkg-web/  (no bundler: init(); the demo, tests, benchmark)
#   scripts/build.sh bundler  pkg/      (the npm package: the .wasm as a WebAssembly ES module,
#                                        with its Node and no-bundler builds in pkg/node/ and pkg/web/,
#                                        and all of it again in pkg/references/ on a module built
#                                        with the Cargo feature `references`)
#   scripts/build.sh references  target/pkg-node-references/  (that flavour's Node build alone,
#                                        and its CommonJS entries)
#   scripts/build.sh node     target/pkg-node/  (the Node build alone, and its CommonJS entries:
#                                        the demo's server processes)
# Every build has the whole protocol in its one module (src/core,
# src/bindings) and one JS file of glue (js/module, and what it links:
# js/transports/postmessage.js); each subpath entry (js/entries,
# js/transports: subpath-entries.mjs) is one file beside it, outside its
# imports. The Node build also has Content-Length framing (`wiggum-rpc/framing`)
# and sessions handed between processes (`Peer.handOff`, the Redis cluster's).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/node_modules/.bin:$HOME/.cargo/bin:$PATH"
target="${1:-web}"
case "$target" in
  web) out=pkg-web ;;
  bundler) out=pkg ;;
  references) out=target/pkg-node-references ;;
  node) out=target/pkg-node ;;
  *) echo "usage: scripts/build.sh [web|bundler|references|node]" >&2; exit 2 ;;
esac
# no_std with a trapping panic handler: std's panic and formatting machinery
# out of the module (see src/lib.rs).
export RUSTFLAGS="${RUSTFLAGS:-} --cfg wiggum_no_std"
# Cargo.toml's [package.metadata.wasm-opt] flags.
read -r -a opt_flags <<<"$(sed -n 's/^flags = \[\(.*\)\]$/\1/p' Cargo.toml | tr -d '",')"

# The .wasm, optimized, and wasm-bindgen's glue for it (wiggum_rpc_generated.js),
# into $1 ($2: Cargo features). wasm-pack runs the wasm-bindgen on PATH
# (scripts/setup.sh pins it) and no wasm-opt of its own (Cargo.toml).
module() {
  local dir=$1 features=${2:-}
  local target_dir=target
  [ -n "$features" ] && target_dir=target/with-${features//,/-}
  local bindgen="$PWD/$target_dir/wasm-pack"
  CARGO_TARGET_DIR="$target_dir" wasm-pack --quiet build --release --target bundler --no-typescript --no-pack \
    --out-dir "$bindgen" --out-name wiggum_rpc . -- ${features:+--features "$features"}
  rm -rf "$dir"
  mkdir -p "$dir"
  # Only npm's binaryen: Debian's wasm-opt corrupts modules (docs: TOOLCHAIN).
  "$PWD/node_modules/.bin/wasm-opt" "${opt_flags[@]}" --strip-debug --strip-producers --strip-target-features \
    "$bindgen/wiggum_rpc_bg.wasm" -o "$dir/wiggum_rpc_bg.wasm"
  cp "$bindgen/wiggum_rpc_bg.js" "$dir/wiggum_rpc_generated.js"
}

# A Node build ($2: its Cargo features; $3: its entries' sources, from
# subpath-entries.mjs), and its CommonJS entries, into $1.
node_build() {
  module "$1" "$2"
  node scripts/glue.mjs node "$1"
  cp "$1/wiggum_rpc.js" "$1/wiggum_rpc.cjs"
  node --input-type=module -e "import { $3, writeSubpathEntries } from './scripts/subpath-entries.mjs'; await writeSubpathEntries('$1', 'cjs', $3);"
}

if [ "$target" = references ]; then
  node_build "$out" framing,references,handoff REFERENCE_SOURCES
  exit 0
fi
if [ "$target" = node ]; then
  node_build "$out" framing,handoff SOURCES
  exit 0
fi
if [ "$target" = web ]; then
  module pkg-web
  node scripts/glue.mjs web pkg-web
  exit 0
fi
# The npm package serves Node and browsers without a bundler too (see
# package-entries.mjs).
module pkg
# The same module for browsers without a bundler (glue.mjs renames its exports, alike in both).
rm -rf target/pkg-web-nobundler && mkdir -p target/pkg-web-nobundler
cp pkg/wiggum_rpc_bg.wasm pkg/wiggum_rpc_generated.js target/pkg-web-nobundler/
node scripts/glue.mjs bundler pkg
node scripts/glue.mjs web target/pkg-web-nobundler
node_build target/pkg-node framing,handoff SOURCES
# The references flavour: the three builds again on the module with them.
module target/pkg-references references
rm -rf target/pkg-web-references && mkdir -p target/pkg-web-references
cp target/pkg-references/wiggum_rpc_bg.wasm target/pkg-references/wiggum_rpc_generated.js target/pkg-web-references/
node scripts/glue.mjs bundler target/pkg-references
node scripts/glue.mjs web target/pkg-web-references
node_build target/pkg-node-references framing,references,handoff REFERENCE_SOURCES
node scripts/package-entries.mjs pkg target/pkg-node target/pkg-web-nobundler \
  target/pkg-references target/pkg-node-references target/pkg-web-references
