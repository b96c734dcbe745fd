#!/usr/bin/env bash
# The container image: builds a local stand-in for node:20-bookworm-slim (no image registry is
# reachable here; scripts/container/base-image.sh, cached by its content), then the image from
# the Containerfile (--format docker keeps its HEALTHCHECK), and runs
# scripts/test-suites/container/image.test.ts against it: embedded database on a named volume
# with a read-only root filesystem, `arbiter demo`, a SIGTERM stop and a restart on the same
# volume, a PostgreSQL server, the size bound, compose.yaml. Writes RESULTS_DIR/container.xml.
# Installs podman, runc and debootstrap from Debian's packages when missing.
# Usage: bash scripts/test-suites/container.sh RESULTS_DIR   (ARBITER_PYTHON: the .venv python)
set -euo pipefail
cd "$(dirname "$0")/../.."
results=$(cd "${1:?results dir}" && pwd)
python=${ARBITER_PYTHON:-$(bash scripts/python-env.sh)}

bash scripts/ensure-podman.sh
# This machine's runtime, cgroup manager and limits, for every podman command below.
CONTAINERS_CONF=$PWD/scripts/container/containers.conf
export CONTAINERS_CONF
# The quickstart's commands run on this machine too (`npx arbiter token`, the client library).
sh scripts/bootstrap.sh

base=$(bash scripts/container/base-image.sh)
echo "== container: base image $base ready at ${SECONDS} s"
# One tag, kept between runs: its layers are the next build's cache.
image=localhost/arbiter:test-suite
podman build --quiet --format docker --build-arg NODE_IMAGE="$base" -t "$image" -f Containerfile . >/dev/null
echo "== container: image built at ${SECONDS} s"

# The suite's own PostgreSQL server (a free port of its own, or ARBITER_CONTAINER_PG_PORT: the
# server suite's runs beside it) in a directory of its own, stopped and removed when the suite
# ends, however it ends; and a fresh database on it.
pg_dir=$(mktemp -d "${TMPDIR:-/tmp}/arbiter-container-pg.XXXXXX")
trap 'bash scripts/stop-postgres.sh "$pg_dir"' EXIT
pg_admin=$(ARBITER_TEST_PG_DIR=$pg_dir ARBITER_TEST_PG_PORT=${ARBITER_CONTAINER_PG_PORT:-} \
  bash scripts/ensure-postgres.sh)
database=arbiter_container_$$
export PGOPTIONS='--client-min-messages=warning'
psql -q "$pg_admin" -c "DROP DATABASE IF EXISTS $database" -c "CREATE DATABASE $database"

status=0
ARBITER_IMAGE=$image ARBITER_BASE_IMAGE=$base ARBITER_CONTAINER_DATABASE_URL=${pg_admin%/*}/$database \
  ARBITER_COMPOSE="$(dirname "$python")/podman-compose" \
  npx vitest run --config scripts/test-suites/container/vitest.config.ts \
  --reporter=default --reporter=junit --outputFile.junit="$results/container.xml" || status=1

psql -q "$pg_admin" -c "DROP DATABASE IF EXISTS $database" || true
echo "== container: done at ${SECONDS} s"
exit $status
