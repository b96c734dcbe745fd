#!/bin/sh
# Installs the npm dependencies when they are missing or older than the lock file, then builds.
# `npm install` rather than `npm ci`: npm 11.19's ci rejects lock files that omit other
# platforms' optional packages (biome's), which its own install writes; install honours the
# lock all the same.
set -eu
cd "$(dirname "$0")/.."
if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "installing npm packages" >&2
  npm install --no-audit --no-fund --loglevel=error >&2
fi
# The production build (server, `arbiter` command, client library, dashboard): rebuilt only when a source
# is newer than the last build.
node scripts/build.mjs
