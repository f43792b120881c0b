#!/usr/bin/env bash
# SPIKE: an estimate of the JS the driver leaves out, from today's js/module
# code: gzip -9 of esbuild bundles (minified, ESM) of the driver alone, the
# driver with today's transports (postmessage.js), and the driver with the
# transports and the pieces of serving.js, extensions.js, wire.js and
# glue.js that carry what the driver lacks. Run after spike/build.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
size() {
  node_modules/.bin/esbuild "$tmp/$1.js" --bundle --minify --format=esm --log-level=error > "$tmp/$1.out.js"
  printf '%-44s %6d raw %6d gzip -9\n' "$2" "$(wc -c < "$tmp/$1.out.js")" "$(gzip -9 -c "$tmp/$1.out.js" | wc -c)"
}
echo "export * from \"$root/spike/driver.js\";" > "$tmp/driver.js"
cat > "$tmp/transports.js" <<JS
export * as driver from "$root/spike/driver.js";
export * from "$root/js/transports/postmessage.js";
JS
cat > "$tmp/full.js" <<JS
export * as driver from "$root/spike/driver.js";
export * from "$root/js/transports/postmessage.js";
export * from "$root/js/module/serving.js";
export * from "$root/js/module/extensions.js";
export { Transfer, transfer, post } from "$root/js/module/wire.js";
export { ErrorCode, openOptions, chunk, progress, countConsumed, watchAbort } from "$root/js/module/glue.js";
JS
cat > "$tmp/today.js" <<JS
export * from "$root/js/module/endpoints.js";
export * from "$root/js/module/glue.js";
export * from "$root/js/module/serving.js";
export * from "$root/js/module/wire.js";
export * from "$root/js/module/extensions.js";
export * from "$root/js/transports/postmessage.js";
JS
size driver "the spike's driver"
size transports "driver + postmessage.js"
size full "driver + transports + left-out pieces"
size today "today's hand-written JS (no wasm-bindgen glue)"
