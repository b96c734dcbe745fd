#!/usr/bin/env bash
# The one test command: installs what it needs, checks the tree, runs every suite.
# The server suite runs twice: on embedded PGlite and on a PostgreSQL server.
set -euo pipefail
cd "$(dirname "$0")/.."

sh scripts/bootstrap.sh
results=$(mktemp -d)
vitest() { npx vitest run --reporter=default --reporter=json --outputFile="$results/$1.json" "${@:2}"; }

echo "== lint and format (biome)"
npx biome check .
echo "== typecheck (tsc)"
npx tsc -p tsconfig.json

projects=(--project bucketing)
if [ -f packages/stats/oracle/requirements.txt ]; then
  ARBITER_PYTHON=$(bash scripts/python-env.sh)
  export ARBITER_PYTHON
  projects+=(--project stats)
fi
if [ -f clients/typescript/vitest.config.ts ]; then
  bash scripts/ensure-chromium.sh
  projects+=(--project client-ts)
fi

echo "== libraries: ${projects[*]}"
vitest libraries "${projects[@]}"

echo "== server on embedded PGlite"
# *.postgres.test.ts need concurrent transactions: a PostgreSQL server's, not PGlite's one connection
ARBITER_TEST_DB=pglite vitest server-pglite --project server --exclude '**/*.postgres.test.ts'

echo "== server on PostgreSQL"
ARBITER_TEST_DATABASE_URL=$(bash scripts/ensure-postgres.sh)
export ARBITER_TEST_DATABASE_URL
ARBITER_TEST_DB=postgres vitest server-postgres --project server

node scripts/summarize-tests.mjs "$results"
