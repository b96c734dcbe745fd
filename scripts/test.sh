#!/usr/bin/env bash
# The one test command: installs what it needs, checks the tree, runs every suite.
# The server suite runs twice: on embedded PGlite and on a PostgreSQL server. Suites of other
# runners (pytest, Maven, Playwright, schemathesis) run beside them in the background; each
# writes a JUnit report into the results folder, and one closing line adds everything up.
set -euo pipefail
cd "$(dirname "$0")/.."

# One temporary directory holds everything the run makes: the PostgreSQL cluster (data, socket,
# log), every suite's temporary files (TMPDIR points into it) and, unless ARBITER_TEST_RESULTS
# names a folder to keep them in, the reports and logs (every log is printed below as well).
# ARBITER_TEST_RUN (that directory's path) tags every process the run starts, through its
# environment: scripts/leftovers.mjs finds the run's own processes by it, however detached.
# The trap stops all of it and removes the directory, on success, on failure and on Ctrl-C.
tmp_parent=${TMPDIR:-/tmp}
# The clusters run as the postgres user when we are root, so every folder above the run's must
# let others through. A TMPDIR that does not (`mktemp -d` makes 0700 folders) would fail every
# PostgreSQL lane at initdb; the run goes to /tmp instead, and says so.
others_can_enter() {
  local d
  d=$(cd "$1" && pwd -P)
  while [ "$d" != / ]; do
    [ -n "$(find "$d" -maxdepth 0 -perm -o=x)" ] || return 1
    d=$(dirname "$d")
  done
}
if [ "$(id -u)" = 0 ] && ! others_can_enter "$tmp_parent"; then
  echo "TMPDIR $tmp_parent is closed to other users (the postgres user among them): this run's folder goes in /tmp" >&2
  tmp_parent=/tmp
fi
tmp_before=$(ls -A "$tmp_parent")
run_dir=$(mktemp -d "$tmp_parent/arbiter-test.XXXXXX")
# The cluster runs as the postgres user when we are root: it must get through to run_dir/pg.
chmod 711 "$run_dir"
printf '%s\n' "$tmp_before" >"$run_dir/tmp-before"
mkdir "$run_dir/tmp"
pg_dir=$run_dir/pg
export ARBITER_TEST_RUN=$run_dir TMPDIR=$run_dir/tmp
results=${ARBITER_TEST_RESULTS:-$run_dir/results}
mkdir -p "$results"

cleanup() {
  local code=$?
  trap - EXIT INT TERM
  # Background suites still running after a failure or an interrupt, and whatever they started,
  # are ended; the cluster is stopped first so that it shuts down cleanly.
  bash scripts/stop-postgres.sh "$pg_dir" || true
  node scripts/leftovers.mjs kill || true
  rm -rf "$run_dir"
  echo "removed $run_dir" >&2
  exit "$code"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# The installs that do not touch node_modules run beside npm's install and the build: on a bare
# machine the Python environment (scipy, schemathesis, openai…) and the Debian packages are
# mostly downloads, which would otherwise wait for npm's. Both are waited for before the pack.
background_install() {
  (
    set +e
    bash "${@:2}" >"$run_dir/$1.out" 2>"$run_dir/$1.log"
    echo $? >"$run_dir/$1.exit"
  ) &
}
finish_install() {
  cat "$run_dir/$1.log" >&2
  [ "$(cat "$run_dir/$1.exit")" = 0 ] || { echo "$1 failed (exit $(cat "$run_dir/$1.exit"))" >&2; exit 1; }
}
background_install python-env scripts/python-env.sh
python_env=$!
background_install debian-packages -c 'exec >&2; bash scripts/ensure-maven.sh && bash scripts/ensure-chromium.sh && bash scripts/ensure-systemd.sh'
debian_packages=$!
sh scripts/bootstrap.sh
# Started in the background and waited for: bash runs a trap only once the command in the
# foreground has ended, while `wait` returns at once on a signal, so a TERM sent to this command
# alone stops a 10-minute vitest run now (the trap ends it) rather than when it finishes.
vitest() {
  npx vitest run --reporter=default --reporter=json --outputFile="$results/$1.json" "${@:2}" &
  wait $!
}

# One Python environment for every Python suite, made before any of them starts.
wait "$python_env"
finish_install python-env
ARBITER_PYTHON=$(cat "$run_dir/python-env.out")
export ARBITER_PYTHON

# Maven for the pack, Chromium for the dashboard's tests, systemd-analyze for the systemd unit's
# test (apps/server/test/systemd-unit.test.ts).
wait "$debian_packages"
finish_install debian-packages

# The client libraries as `npm run pack` builds them (the TypeScript build is bootstrap's, not
# redone), once, for the quickstart test of both server passes, which runs the quickstart's
# TypeScript, Python and Java programs on them. Beside the lint and typecheck below; finished
# before the side suites start, since the Java suite cleans clients/java/target, where Maven
# builds the jar. A failure is counted as one by the summary (pack.exit, no report).
ARBITER_QUICKSTART_PACKAGES=$run_dir/packages
export ARBITER_QUICKSTART_PACKAGES
(
  set +e
  PACK_OUT=$ARBITER_QUICKSTART_PACKAGES bash scripts/pack.sh >"$results/pack.log" 2>&1
  echo $? >"$results/pack.exit"
) &
pack=$!

# side NAME SCRIPT: runs `bash SCRIPT RESULTS_DIR` in the background; its output is printed at the end.
side_suites=()
# say TITLE: a section heading with the time since the command started, to see where the time goes.
say() { echo "== $1 (at ${SECONDS}s)"; }
# done_at NAME [WHAT]: when NAME ended, and the CPU time (user + system, whole seconds) of this
# shell's finished children: what each suite cost the two cores (processes that detach are not
# counted). `times` runs in this shell: in a command substitution it would report a subshell's.
done_at() {
  times >"$results/$1.times"
  echo "${SECONDS}s, CPU ${2:-}$(awk 'NR == 2 { split($1, u, /[ms]/); split($2, s, /[ms]/)
    printf "%d", u[1] * 60 + u[2] + s[1] * 60 + s[2] }' "$results/$1.times")s" >"$results/$1.done-at"
  rm -f "$results/$1.times"
}
side() {
  side_suites+=("$1")
  (
    set +e
    bash "$2" "$results" >"$results/$1.log" 2>&1
    echo $? >"$results/$1.exit"
    done_at "$1"
  ) &
}
print_side_suites() {
  wait
  for name in "${side_suites[@]}"; do
    echo "== $name (exit $(cat "$results/$name.exit"), done at $(cat "$results/$name.done-at"))"
    cat "$results/$name.log"
  done
}

say "lint and format (biome)"
npx biome check .
say "typecheck (tsc)"
npx tsc -p tsconfig.json
# The dashboard (DOM, JSX; types generated by its build, which bootstrap.sh ran) and its tests.
npx tsc -p apps/dashboard/tsconfig.json
npx tsc -p apps/dashboard/tsconfig.node.json
# The contract package alone, without Node or DOM types: the dashboard and browsers bundle it.
npx tsc -p packages/contract/tsconfig.json
# The condition evaluator alone, likewise: the server and the TypeScript client bundle it.
npx tsc -p packages/conditions/tsconfig.json
# The TypeScript client with its tests (vitest runs them untyped; this is what checks their types).
npx tsc -p clients/typescript/tsconfig.json
# Its OpenFeature providers (server and web), likewise.
npx tsc -p clients/typescript-openfeature/tsconfig.json
npx tsc -p clients/typescript-openfeature-web/tsconfig.json

wait "$pack"
echo "== npm run pack (exit $(cat "$results/pack.exit"), at ${SECONDS}s)"
cat "$results/pack.log"

for suite in scripts/test-suites/*.sh; do
  side "$(basename "$suite" .sh)" "$suite"
done

projects=(--project bucketing --project contract --project conditions --project stats --project dashboard --project client-ts
  --project openfeature-ts --project openfeature-web)

status=0
# Every server log line of both server runs, and every secret those servers minted, land here;
# check-log-secrets.mjs then fails the run if any secret reached a log line.
ARBITER_TEST_LOG_DIR="$results/server-logs"

# A cluster of this run's own (a free port, in run_dir/pg), unless ARBITER_TEST_DATABASE_URL
# names a server that answers: started before the lanes, since either lane may take a pass on
# it; stopped once both lanes have ended, and by the trap on a failure.
pg_url=$(ARBITER_TEST_PG_DIR=$pg_dir bash scripts/ensure-postgres.sh 2>"$results/postgres-cluster.log") ||
  pg_url=

# pass NAME VITEST_ARGS...: one vitest run into NAME's report and log, in a subshell of its own
# so that done_at counts its CPU alone.
pass() {
  (
    set +e
    vitest "$@" >"$results/$1.log" 2>&1
    echo $? >"$results/$1.exit"
    done_at "$1"
  )
}
# The passes on PostgreSQL, in the order taken: the server's files in two halves (vitest's
# --shard, by file), then the data path on two shards. *.embedded.test.ts start `arbiter`
# processes on their own embedded database whatever the pass (the process's life, the CLI,
# backups, the quickstart): the PGlite pass runs them. The shard pass puts event data on two
# more fresh databases per file on the same cluster (ARBITER_TEST_SHARDS): acceptance,
# de-duplication, metering, the fold, traffic, and the analyses that scatter over them.
postgres_passes=(server-postgres-1 server-postgres-2 server-shards)
postgres_pass() {
  if [ -z "$pg_url" ]; then
    cp "$results/postgres-cluster.log" "$results/$1.log"
    echo 1 >"$results/$1.exit"
    return
  fi
  (
    export ARBITER_TEST_DATABASE_URL=$pg_url ARBITER_TEST_DB=postgres ARBITER_TEST_LOG_DIR
    case $1 in
      server-postgres-*)
        pass "$1" --project server --exclude '**/*.embedded.test.ts' "--shard=${1##*-}/2" ;;
      server-shards)
        export ARBITER_TEST_SHARDS=2
        # shellcheck disable=SC2046 # one argument per file
        pass "$1" --project server $(cat scripts/shard-pass-files.txt) ;;
    esac
  )
}
# take_postgres_passes: the passes no lane has taken yet, one at a time (mkdir claims one), so
# that the lane that ends its first pass first does more of them: the two lanes end together.
take_postgres_passes() {
  for name in "${postgres_passes[@]}"; do
    mkdir "$run_dir/taken-$name" 2>/dev/null && postgres_pass "$name"
  done
  return 0
}

# Two lanes, each running one test file at a time (vitest's default on two cores), so that both
# cores stay busy: the server on PGlite in the foreground; beside it the libraries (the
# dashboard's browser tests and the clients' fault tests mostly wait, on Chromium, on retries).
# Then each lane takes the passes on PostgreSQL that are left, whose files wait on the
# cluster's own processes.
say "libraries beside the server on embedded PGlite, then the passes on PostgreSQL: ${projects[*]}"
(
  pass libraries "${projects[@]}"
  take_postgres_passes
) &
lane=$!

say "server on embedded PGlite"
# *.postgres.test.ts need concurrent transactions: a PostgreSQL server's, not PGlite's one connection
# Also kept in the results, where the summary finds the error of a failed describe block's hook.
{
  code=0
  ARBITER_TEST_LOG_DIR=$ARBITER_TEST_LOG_DIR ARBITER_TEST_DB=pglite \
    vitest server-pglite --project server --exclude '**/*.postgres.test.ts' 2>&1 || code=$?
  done_at server-pglite
  exit $code
} | tee "$results/server-pglite.log" || status=1
echo "== server-pglite (done at $(cat "$results/server-pglite.done-at"))"
take_postgres_passes

wait "$lane"
bash scripts/stop-postgres.sh "$pg_dir" >>"$results/postgres-cluster.log" 2>&1
for name in libraries "${postgres_passes[@]}"; do
  echo "== $name (exit $(cat "$results/$name.exit" 2>/dev/null || echo none), done at $(cat "$results/$name.done-at" 2>/dev/null || echo -))"
  cat "$results/$name.log"
  [ "$(cat "$results/$name.exit" 2>/dev/null)" = 0 ] || status=1
done

say "no secret in the server log (both server runs)"
node scripts/check-log-secrets.mjs "$results" || status=1

print_side_suites
# Last, once every suite has ended and stopped what it started: nothing of the run may be left.
say "nothing left behind: no process of this run, nothing new in $tmp_parent"
node scripts/leftovers.mjs check "$results" "$run_dir/tmp-before" "$tmp_parent" || status=1
say "summary"
node scripts/summarize-tests.mjs "$results" || status=1
exit $status
