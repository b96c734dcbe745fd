#!/usr/bin/env bash
# Stops a cluster scripts/ensure-postgres.sh started in DIR (ARBITER_TEST_PG_DIR) and removes DIR
# with its data, socket and logs. Does nothing when DIR holds no running cluster, so a cleanup
# trap can call it whether or not the cluster was ever started.
# Usage: bash scripts/stop-postgres.sh DIR
set -euo pipefail
dir=${1:?usage: stop-postgres.sh DIR}
if [ -f "$dir/data/postmaster.pid" ]; then
  bindir=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)
  run() { if [ "$(id -u)" = 0 ]; then su postgres -s /bin/sh -c "$*"; else sh -c "$*"; fi; }
  # fast: ends open sessions instead of waiting for them; the data is thrown away anyway.
  run "'$bindir/pg_ctl' -D '$dir/data' -m fast -w stop >/dev/null" ||
    echo "stop-postgres: pg_ctl could not stop the cluster in $dir" >&2
fi
rm -rf "$dir"
