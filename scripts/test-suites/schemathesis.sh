#!/usr/bin/env bash
# Schemathesis against a fresh embedded server's own /v1/openapi.json, every check on, three
# times: with a session token (dashboard, admin, meta and webhook routes), with the secret key
# and with the publishable key (ingest and OFREP routes). Writes the three JUnit reports merged into
# RESULTS_DIR/schemathesis.xml; exits non-zero on any failure.
# Usage: bash scripts/test-suites/schemathesis.sh RESULTS_DIR   (ARBITER_PYTHON: the .venv python)
set -euo pipefail
cd "$(dirname "$0")/../.."
results=$(cd "${1:?results dir}" && pwd)
python=${ARBITER_PYTHON:-$(bash scripts/python-env.sh)}
# Examples per operation and phase: enough to reach every branch of the schemas, small enough
# for a few minutes on two shared cores.
examples=${SCHEMATHESIS_MAX_EXAMPLES:-25}
config=$PWD/scripts/test-suites/schemathesis.toml

sh scripts/bootstrap.sh
work=$(mktemp -d)
server_pid=
cleanup() {
  if [ -n "$server_pid" ] && kill -0 "$server_pid" 2>/dev/null; then
    kill "$server_pid"
    wait "$server_pid" 2>/dev/null || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT

# A bare machine's settings: embedded PGlite in a fresh data dir, development sessions.
export ARBITER_PORT=0 ARBITER_DATA_DIR="$work/data" ARBITER_SESSION_JWKS_URL='' \
  ARBITER_DATABASE_URL='' ARBITER_SECRET_KEY='' ARBITER_LOG_LEVEL=warn ARBITER_SCHEDULER=false
node apps/server/bin/arbiter.js serve >"$work/server.log" 2>&1 &
server_pid=$!
for _ in $(seq 1 240); do
  grep -q 'Arbiter is running at' "$work/server.log" && break
  kill -0 "$server_pid" 2>/dev/null || { cat "$work/server.log" >&2; exit 1; }
  sleep 0.5
done
base=$(grep -o 'Arbiter is running at http://[^ ]*' "$work/server.log" | head -1 | awk '{print $NF}')
[ -n "$base" ] || { echo "the server did not start" >&2; cat "$work/server.log" >&2; exit 1; }

token=$(node apps/server/bin/arbiter.js token --email schemathesis@example.com --org schemathesis --role admin)
api() { # METHOD PATH [BODY]: a dashboard call with the session token; prints the body
  curl -sS --fail-with-body -X "$1" "$base$2" -H "Authorization: Bearer $token" \
    -H 'Content-Type: application/json' ${3:+--data "$3"}
}
api POST /v1/experiments '{"name":"schemathesis","salt":"s1","bucket_count":1000,
  "allocation":[{"variant":"control","weight":50},{"variant":"treatment","weight":50}],
  "metrics":[{"name":"latency","kind":"latency","category":"primary","method_default":"welch_t",
  "metric_version":1,"shared_org_wide":false}]}' >/dev/null
json_field() { "$python" -c 'import json,sys; print(json.load(sys.stdin)[sys.argv[1]])' "$1"; }
secret=$(api POST /v1/keys '{"scope":"secret"}' | json_field key)
publishable=$(api POST /v1/keys '{"scope":"publishable"}' | json_field key)

status=0
run() { # NAME CREDENTIAL-HEADER FILTER...: one schemathesis run, its JUnit report in $work
  local name=$1 header=$2
  shift 2
  # Its report is printed only when it failed: schemathesis closes in pytest's words ("N warnings
  # in Ns", no test count), which a reader of the whole output would take for a run of no tests.
  # From the work dir: schemathesis keeps a cache in its current directory.
  if (cd "$work" && "$python" -m schemathesis.cli --config-file "$config" run "$base/v1/openapi.json" \
    --checks all --max-examples "$examples" --seed 20261122 --workers 1 \
    --generation-database none --no-color --output-truncate true \
    --report junit --report-junit-path "$work/$name.xml" \
    -H "$header" "$@") >"$work/$name.log" 2>&1; then
    echo "== schemathesis $name: $(grep -Eo '[0-9]+ generated, [0-9]+ passed(, [0-9]+ skipped)?' "$work/$name.log" | tail -1)"
  else
    echo "== schemathesis $name: FAILED"
    cat "$work/$name.log"
    status=1
  fi
}
# Keyed runs first: the session run rotates the keys (POST /v1/keys) as part of its tests.
run secret-key "X-API-Key: $secret" --include-tag ingest --include-tag ofrep
run publishable-key "X-API-Key: $publishable" --include-tag ingest --include-tag ofrep
run session "Authorization: Bearer $token" --exclude-tag ingest --exclude-tag ofrep

# One report: the three runs' <testsuite> elements side by side.
{
  echo '<?xml version="1.0" encoding="utf-8"?>'
  echo '<testsuites name="schemathesis">'
  for name in secret-key publishable-key session; do
    [ -f "$work/$name.xml" ] || continue
    sed -e '/^<?xml/d' -e 's#</\?testsuites[^>]*>##g' \
      -e "s#<testsuite name=\"\\([^\"]*\\)\"#<testsuite name=\"$name: \\1\"#" "$work/$name.xml"
  done
  echo '</testsuites>'
} >"$results/schemathesis.xml"
exit $status
