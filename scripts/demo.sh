#!/usr/bin/env bash
# Sets up (idempotent), builds the web package (the page's) and the Node
# build (its server's processes), and serves the demo page in www/ on
# http://127.0.0.1:8080/ (PORT=… to change).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh web
bash scripts/build.sh node
node scripts/build-demo.mjs
exec node scripts/serve.mjs
