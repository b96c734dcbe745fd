#!/usr/bin/env bash
# The exposure goal (on >= 0.5x off at a million users): ExposureScaleProbe (assign with exposures on, every user already
# exposed, against exposures off, in CPU-time rates, alternating rounds, per number of users),
# with the load average before and after. Build first with ./run.sh, or:
#   mvn -q -f ../../clients/java/pom.xml install -DskipTests && mvn -q package
set -euo pipefail
cd "$(dirname "$0")"
echo "start $(date -u +%H:%M:%S) UTC, load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
java -cp target/benchmarks.jar dev.arbiter.bench.ExposureScaleProbe "$@"
echo "end $(date -u +%H:%M:%S) UTC, load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
