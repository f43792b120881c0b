#!/usr/bin/env bash
# SPIKE: builds the plain-ABI module (src/raw, `--cfg wiggum_raw`) and the
# minified driver; prints their sizes. Output in spike/build/.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/node_modules/.bin:$HOME/.cargo/bin:$PATH"
export RUSTFLAGS=" --cfg wiggum_no_std --cfg wiggum_raw"
flock /tmp/rust-build.lock nice cargo build --lib --release --target wasm32-unknown-unknown --target-dir target/raw
mkdir -p spike/build
in=target/raw/wasm32-unknown-unknown/release/wiggum_rpc.wasm
wasm-opt "$in" -o spike/build/raw.wasm -Os --converge --low-memory-unused --strip-debug --strip-producers
wasm-opt "$in" -o spike/build/raw-debug.wasm -Os --converge --low-memory-unused --debuginfo
npx esbuild spike/driver.js --bundle --minify --format=esm --outfile=spike/build/driver.min.js --log-level=warning
w=$(stat -c %s spike/build/raw.wasm); wg=$(gzip -9 -c spike/build/raw.wasm | wc -c)
j=$(stat -c %s spike/build/driver.min.js); jg=$(gzip -9 -c spike/build/driver.min.js | wc -c)
echo "wasm: $w raw, $wg gzip -9"
echo "driver.min.js: $j raw, $jg gzip -9"
echo "total gzip: $((wg + jg)) bytes"
node -e '
const m = new WebAssembly.Module(require("fs").readFileSync("spike/build/raw.wasm"));
const imports = WebAssembly.Module.imports(m), exports = WebAssembly.Module.exports(m);
console.log(`imports (${imports.length}): ${imports.map((i) => i.module + "." + i.name).join(" ")}`);
console.log(`exports (${exports.length}): ${exports.map((e) => e.name).join(" ")}`);
if ([...imports, ...exports].some((i) => /wbindgen|wbg/.test(i.name + (i.module ?? "")))) { console.error("wasm-bindgen left in!"); process.exit(1); }'
