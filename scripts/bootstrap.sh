#!/bin/sh
# Installs the npm dependencies when they are missing or older than the lock file.
# `npm install` rather than `npm ci`: npm 11.19's ci rejects lock files that omit other
# platforms' optional packages (biome's), which its own install writes; install honours the
# lock all the same.
set -eu
cd "$(dirname "$0")/.."
if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "installing npm packages" >&2
  npm install --no-audit --no-fund --loglevel=error >&2
fi

# The dashboard the server serves at `/`: rebuilt when its build is missing or older than its
# sources or the server schemas its types come from (a find over a few dozen files: fast to skip).
dashboard=apps/dashboard
if [ ! -f "$dashboard/dist/index.html" ] || [ -n "$(find "$dashboard/src" "$dashboard/index.html" \
  "$dashboard/vite.config.ts" "$dashboard/package.json" "$dashboard/scripts" apps/server/src/routes \
  apps/server/src/analysis/results-schema.ts apps/server/src/domain/experiments \
  -newer "$dashboard/dist/index.html" -not -name 'schema.d.ts' -print -quit)" ]; then
  echo "building the dashboard" >&2
  node "$dashboard/scripts/build.mjs" >&2
fi
