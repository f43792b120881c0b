#!/usr/bin/env bash
# Builds what the docs site is made from (the package, its API reference,
# the benchmark's charts), then serves the site at http://127.0.0.1:5173/.
#   bash scripts/docs.sh          set-up, build, serve (live reload)
#   bash scripts/docs.sh build    the static site only, into docs/.vitepress/dist
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
[ -f pkg/package.json ] || bash scripts/build.sh bundler
export PATH="$PWD/node_modules/.bin:$PATH"
(cd docs && typedoc --options typedoc.json)
node scripts/bench-charts.mjs docs/benchmark/results.json docs/public/benchmark >/dev/null
if [ "${1:-serve}" = build ]; then
  exec vitepress build docs
fi
exec vitepress dev docs --host 127.0.0.1 --port "${PORT:-5173}"
