#!/usr/bin/env bash
# The scale-out parts on real servers: scripts/kafka-cluster.sh (Kafka's KRaft nodes from Maven
# Central's jars, Java 17) and scripts/s3-server.sh (versitygw, built with go install), started,
# used through @platformatic/kafka and the AWS SDK, faulted and stopped by
# scripts/test-suites/scale-out/*.test.ts. What the scripts need is installed first, so no
# test's start-up waits on a download or a build. Then the server's ingest suite runs again on
# one Kafka broker and one S3 server (the harness's scale-out mode, see below). Writes
# RESULTS_DIR/scale-out.xml and RESULTS_DIR/scale-out-ingest.xml.
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
stop_all() {
  bash scripts/kafka-cluster.sh stop "$pg_dir/kafka" >/dev/null 2>&1 || true
  bash scripts/s3-server.sh stop "$pg_dir/s3" >/dev/null 2>&1 || true
  bash scripts/stop-postgres.sh "$pg_dir/pg" >/dev/null 2>&1 || true
  rm -rf "$pg_dir"
}
trap stop_all EXIT
url=$(ARBITER_TEST_PG_DIR=$pg_dir/pg bash scripts/ensure-postgres.sh)
echo "== scale-out: PostgreSQL answers at ${SECONDS} s"

status=0
ARBITER_TEST_DB=postgres ARBITER_TEST_DATABASE_URL=$url \
  npx vitest run --config scripts/test-suites/scale-out/vitest.config.ts \
  --reporter=default --reporter=junit --outputFile.junit="$results/scale-out.xml" || status=1
echo "== scale-out: the scale-out tests ended at ${SECONDS} s"

# The server's ingest suite again, with Kafka as every app's event log and an S3 server as its
# model-text store (apps/server/test/support/scale-out-env.ts: a topic and a bucket per app).
ingest_files=(
  apps/server/test/ingest/
  apps/server/test/routes/ingest/
  # The other routes that append (signed business events, the dashboard's test event).
  apps/server/test/routes/webhooks/business-events.test.ts
  apps/server/test/routes/dashboard/test-event.test.ts
  # Model calls priced at acceptance, then stored by the log's fold on Kafka.
  apps/server/test/domain/model-prices/pricing.test.ts
  apps/server/test/domain/model-prices/otlp-pricing.test.ts
  # What reads what ingest stored: the analyses through the fold gate, the live view, the
  # raw-event export (its text from the S3 server).
  apps/server/test/analysis/analysis.test.ts
  apps/server/test/analysis/run/fold-gate.test.ts
  apps/server/test/analysis/run/fold-behind.postgres.test.ts
  apps/server/test/analysis/cuped-sequential-export.test.ts
  apps/server/test/routes/dashboard/manual-runs.test.ts
  apps/server/test/routes/dashboard/live.test.ts
  apps/server/test/routes/exports/events-export.test.ts
)
# Files of those that cannot run on Kafka by their nature, each with its reason, as globs
# (--exclude).
ingest_excluded=(
  # It tests the shards' own log, which stores before the 202 and so answers 503 for a user on
  # a down shard; on Kafka the 202 follows the broker's ack and that shard's part waits in the
  # fold instead (scripts/test-suites/scale-out/kafka-shards.test.ts tests that).
  '**/shard-down.postgres.test.ts'
  # It tests the database log's COPY writes of one org grouped; on Kafka the broker takes them.
  '**/copy-groups.postgres.test.ts'
)
kafka_brokers=$(bash scripts/kafka-cluster.sh start 1 "$pg_dir/kafka" | tail -1)
blob_endpoint=$(bash scripts/s3-server.sh start "$pg_dir/s3" | tail -1)
echo "== scale-out: one Kafka broker and the S3 server answer at ${SECONDS} s"
ARBITER_TEST_DB=postgres ARBITER_TEST_DATABASE_URL=$url \
  ARBITER_TEST_KAFKA_BROKERS=$kafka_brokers ARBITER_TEST_BLOB_ENDPOINT=$blob_endpoint \
  ARBITER_TEST_BLOB_ACCESS_KEY_ID=arbiter ARBITER_TEST_BLOB_SECRET_ACCESS_KEY=arbiter-secret \
  npx vitest run --project server "${ingest_files[@]}" \
  "${ingest_excluded[@]/#/--exclude=}" \
  --reporter=default --reporter=junit --outputFile.junit="$results/scale-out-ingest.xml" ||
  status=1
echo "== scale-out: the ingest suite on Kafka and S3 ended at ${SECONDS} s"
exit "$status"
