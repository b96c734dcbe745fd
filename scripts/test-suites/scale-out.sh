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

npx vitest run --config scripts/test-suites/scale-out/vitest.config.ts \
  --reporter=default --reporter=junit --outputFile.junit="$results/scale-out.xml"
