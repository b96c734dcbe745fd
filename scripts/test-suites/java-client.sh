#!/usr/bin/env bash
# The Java client's JUnit 5 suite (Maven Surefire), with the real server for its parity test.
# Installs Maven from Debian's packages when missing; writes RESULTS_DIR/java-client.xml.
set -euo pipefail
results=${1:?usage: java-client.sh RESULTS_DIR}
root=$(cd "$(dirname "$0")/../.." && pwd)

bash "$root/scripts/ensure-maven.sh"
# The parity test runs `node apps/server/bin/arbiter.js serve`, which needs the npm packages.
[ -d "$root/node_modules/tsx" ] || sh "$root/scripts/bootstrap.sh" >&2

cd "$root/clients/java"
# No stale classes or reports from an earlier run.
rm -rf target
# A JVM ignores TMPDIR: its temporary files (the tests make some) would land in /tmp, outside
# the test command's own directory, which is removed at the end. Maven's JVM and the forked test
# JVM (surefire's argLine) get TMPDIR as java.io.tmpdir.
jtmp="-Djava.io.tmpdir=${TMPDIR:-/tmp}"
export MAVEN_OPTS="${MAVEN_OPTS:-} $jtmp"
# Maven 3.8's console library prints bare colour resets even in batch mode: filtered out.
set +e
mvn -B -q -ntp -Dstyle.color=never test -Darbiter.repoRoot="$root" "-DargLine=$jtmp" 2>&1 |
  sed -u '/^\(\x1b\[0m\)*$/d'
status=${PIPESTATUS[0]}
set -e

reports=(target/surefire-reports/TEST-*.xml)
if [ -e "${reports[0]}" ]; then
  {
    echo '<?xml version="1.0" encoding="UTF-8"?>'
    echo '<testsuites name="java-client">'
    for report in "${reports[@]}"; do sed '/^<?xml/d' "$report"; done
    echo '</testsuites>'
  } >"$results/java-client.xml"
fi
exit "$status"
