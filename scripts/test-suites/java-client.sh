#!/usr/bin/env bash
# The Java artifacts' JUnit 5 suites (Maven Surefire), as one reactor (clients/java-reactor/pom.xml): the
# client, with the real server for its parity test, then its LangChain4j listener, whose tests use
# the client's test fakes, and its OpenFeature provider (against the real server too). Installs Maven from Debian's packages when missing; writes
# RESULTS_DIR/java-client.xml with the reports of both.
set -euo pipefail
results=${1:?usage: java-client.sh RESULTS_DIR}
root=$(cd "$(dirname "$0")/../.." && pwd)

bash "$root/scripts/ensure-maven.sh"
# The parity test runs `node apps/server/bin/arbiter.js serve`, which needs the npm packages.
[ -d "$root/node_modules/tsx" ] || sh "$root/scripts/bootstrap.sh" >&2

cd "$root/clients"
# No stale classes or reports from an earlier run.
rm -rf java/target java-langchain4j/target java-openfeature/target
# A JVM ignores TMPDIR: its temporary files (the tests make some) would land in /tmp, outside
# the test command's own directory, which is removed at the end. Maven's JVM and the forked test
# JVM (surefire's argLine) get TMPDIR as java.io.tmpdir.
jtmp="-Djava.io.tmpdir=${TMPDIR:-/tmp}"
export MAVEN_OPTS="${MAVEN_OPTS:-} $jtmp"
# Maven 3.8's console library prints bare colour resets even in batch mode: filtered out.
set +e
mvn -B -q -ntp -Dstyle.color=never -f java-reactor/pom.xml test -Darbiter.repoRoot="$root" "-DargLine=$jtmp" 2>&1 |
  sed -u '/^\(\x1b\[0m\)*$/d'
status=${PIPESTATUS[0]}
set -e

# A module that did not run (the listener's, when the client's tests failed) has no reports.
shopt -s nullglob
reports=(java/target/surefire-reports/TEST-*.xml java-langchain4j/target/surefire-reports/TEST-*.xml
  java-openfeature/target/surefire-reports/TEST-*.xml)
if [ ${#reports[@]} -gt 0 ]; then
  {
    echo '<?xml version="1.0" encoding="UTF-8"?>'
    echo '<testsuites name="java-client">'
    for report in "${reports[@]}"; do sed '/^<?xml/d' "$report"; done
    echo '</testsuites>'
  } >"$results/java-client.xml"
fi
exit "$status"
