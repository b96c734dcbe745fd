#!/usr/bin/env bash
# The one test command: installs what it needs, checks the tree, runs every suite.
# The server suite runs twice: on embedded PGlite and on a PostgreSQL server. Suites of other
# runners (pytest, Maven, Playwright, schemathesis) run beside them in the background; each
# writes a JUnit report into the results folder, and one closing line adds everything up.
set -euo pipefail
cd "$(dirname "$0")/.."

sh scripts/bootstrap.sh
results=$(mktemp -d)
vitest() { npx vitest run --reporter=default --reporter=json --outputFile="$results/$1.json" "${@:2}"; }

# One Python environment for every Python suite, made before any of them starts.
ARBITER_PYTHON=$(bash scripts/python-env.sh)
export ARBITER_PYTHON

# side NAME SCRIPT: runs `bash SCRIPT RESULTS_DIR` in the background; its output is printed at the end.
side_suites=()
side() {
  side_suites+=("$1")
  (
    set +e
    bash "$2" "$results" >"$results/$1.log" 2>&1
    echo $? >"$results/$1.exit"
  ) &
}
print_side_suites() {
  wait
  for name in "${side_suites[@]}"; do
    echo "== $name (exit $(cat "$results/$name.exit"))"
    cat "$results/$name.log"
  done
}

echo "== lint and format (biome)"
npx biome check .
echo "== typecheck (tsc)"
npx tsc -p tsconfig.json

for suite in scripts/test-suites/*.sh; do
  [ -e "$suite" ] || continue
  side "$(basename "$suite" .sh)" "$suite"
done

projects=(--project bucketing --project stats --project dashboard)
if [ -f clients/typescript/vitest.config.ts ]; then
  bash scripts/ensure-chromium.sh
  projects+=(--project client-ts)
fi

status=0
echo "== libraries: ${projects[*]}"
vitest libraries "${projects[@]}" || status=1

echo "== server on embedded PGlite"
# *.postgres.test.ts need concurrent transactions: a PostgreSQL server's, not PGlite's one connection
ARBITER_TEST_DB=pglite vitest server-pglite --project server --exclude '**/*.postgres.test.ts' || status=1

echo "== server on PostgreSQL"
ARBITER_TEST_DATABASE_URL=$(bash scripts/ensure-postgres.sh)
export ARBITER_TEST_DATABASE_URL
ARBITER_TEST_DB=postgres vitest server-postgres --project server || status=1

print_side_suites
node scripts/summarize-tests.mjs "$results" || status=1
exit $status
