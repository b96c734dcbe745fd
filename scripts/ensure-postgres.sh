#!/usr/bin/env bash
# Prints a PostgreSQL admin URL for the server test pass. Uses ARBITER_TEST_DATABASE_URL when it
# answers; otherwise installs Debian's PostgreSQL when missing and starts a throwaway cluster.
#
# Two ways to run it:
# - ARBITER_TEST_PG_DIR=DIR (what scripts/test.sh does): the cluster's data, socket and logs all
#   live in DIR, on ARBITER_TEST_PG_PORT or a free port, and scripts/stop-postgres.sh DIR stops it
#   and removes DIR. A server already answering on the port is not reused: the caller owns what
#   it stops.
# - without it (a cluster kept between runs, e.g. for running *.postgres.test.ts by hand): port
#   ARBITER_TEST_PG_PORT (default 54329), reused when something answers there, data in a new
#   $TMPDIR/arbiter-test-pg.* directory (/tmp by default) that stays until you stop it.
set -euo pipefail

if [ -n "${ARBITER_TEST_DATABASE_URL:-}" ] && pg_isready -d "$ARBITER_TEST_DATABASE_URL" >/dev/null 2>&1; then
  echo "$ARBITER_TEST_DATABASE_URL"
  exit 0
fi

bindir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)
if [ -z "$bindir" ] || [ ! -x "$bindir/postgres" ]; then
  echo "installing PostgreSQL from Debian's packages" >&2
  "$(dirname "$0")/apt-install.sh" postgresql
  bindir=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)
fi

if [ -n "${ARBITER_TEST_PG_DIR:-}" ]; then
  dir=$ARBITER_TEST_PG_DIR
  mkdir -p "$dir"
  # A port nothing listens on now (the kernel's choice), unless one is given.
  port=${ARBITER_TEST_PG_PORT:-$(node -e "const s = require('node:net').createServer().listen(0, '127.0.0.1', () => { console.log(s.address().port); s.close(); })")}
else
  port=${ARBITER_TEST_PG_PORT:-54329}
  if "$bindir/pg_isready" -h 127.0.0.1 -p "$port" >/dev/null 2>&1; then
    echo "postgres://postgres@127.0.0.1:$port/postgres"
    exit 0
  fi
  dir=$(mktemp -d "${TMPDIR:-/tmp}/arbiter-test-pg.XXXXXX")
fi
url="postgres://postgres@127.0.0.1:$port/postgres"

# PostgreSQL refuses to run as root: the cluster belongs to the postgres user when we are root
# (every folder above DIR must then let it through).
run() { if [ "$(id -u)" = 0 ]; then su postgres -s /bin/sh -c "$*"; else sh -c "$*"; fi; }
if [ "$(id -u)" = 0 ]; then chown postgres "$dir"; fi
run "'$bindir/initdb' -D '$dir/data' -U postgres -A trust --no-sync -E UTF8 >'$dir/initdb.log' 2>&1"
run "'$bindir/pg_ctl' -D '$dir/data' -l '$dir/server.log' -w -o \"-p $port -k '$dir' -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200\" start >/dev/null"
echo "$url"
