#!/usr/bin/env bash
# The scale-out parts on real servers: scripts/kafka-cluster.sh (Kafka's KRaft nodes from Maven
# Central's jars, Java 17) and scripts/s3-server.sh (versitygw, built with go install), started,
# used through @platformatic/kafka and the AWS SDK, faulted and stopped by
# scripts/test-suites/scale-out/*.test.ts. What the scripts need is installed first, so no
# test's start-up waits on a download or a build. Writes RESULTS_DIR/scale-out.xml.
# Usage: bash scripts/test-suites/scale-out.sh RESULTS_DIR
set -euo pipefail
cd "$(dirname "$0")/../.."
results=$(cd "${1:?results dir}" && pwd)

bash scripts/kafka-cluster.sh install
bash scripts/s3-server.sh install
echo "== scale-out: Kafka's jars and the S3 server are installed at ${SECONDS} s"

# The Kafka event log's tests run a server on a PostgreSQL server (its fold workers need
# concurrent transactions): a throwaway cluster, as the server suite's PostgreSQL pass has.
pg_dir=$(mktemp -d "${TMPDIR:-/tmp}/arbiter-scale-out-pg.XXXXXX")
# The cluster runs as the postgres user when we are root: it must get through to pg_dir.
chmod 711 "$pg_dir"
trap 'bash scripts/stop-postgres.sh "$pg_dir/pg" >/dev/null 2>&1 || true; rm -rf "$pg_dir"' EXIT
url=$(ARBITER_TEST_PG_DIR=$pg_dir/pg bash scripts/ensure-postgres.sh)
echo "== scale-out: PostgreSQL answers at ${SECONDS} s"

ARBITER_TEST_DB=postgres ARBITER_TEST_DATABASE_URL=$url \
  npx vitest run --config scripts/test-suites/scale-out/vitest.config.ts \
  --reporter=default --reporter=junit --outputFile.junit="$results/scale-out.xml"
