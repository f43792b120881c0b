#!/usr/bin/env bash
# Builds the npm package and packs it: prints the tarball's path, for
# `npm install <path>` in an app (until the package is on the registry).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh >&2
bash scripts/build.sh bundler >&2
mkdir -p target
name=$(cd pkg && npm pack --silent --pack-destination ../target)
echo "$PWD/target/$name"
