#!/usr/bin/env bash
# Builds the client and the benchmark, then runs JMH once (short: the machine is shared).
# GROWTHBOOK_SDK_DIR may point at a checkout of github.com/growthbook/growthbook-sdk-java;
# otherwise it is cloned and GROWTHBOOK_SDK_REF checked out (the commit RESULTS.md measured).
# The SDK is not on Maven Central (JitPack only), so its sources are compiled in.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
ref=${GROWTHBOOK_SDK_REF:-c509792a3492ac443f3685b07de7fcff8dbcbf24}
mvn -B -q -ntp -Dstyle.color=never -f "$root/clients/java/pom.xml" install -DskipTests
mkdir -p "$here/target"
if [ ! -d "$here/target/growthbook-sdk-java" ]; then
  if [ -n "${GROWTHBOOK_SDK_DIR:-}" ]; then
    cp -r "$GROWTHBOOK_SDK_DIR" "$here/target/growthbook-sdk-java"
  else
    git clone -q https://github.com/growthbook/growthbook-sdk-java "$here/target/growthbook-sdk-java"
    git -C "$here/target/growthbook-sdk-java" checkout -q "$ref"
  fi
fi
cd "$here"
mvn -B -q -ntp -Dstyle.color=never package
# 2 forks x 3 measured iterations of 2 s after 2 warm-ups: enough for a ratio, short on a shared machine.
java -jar target/benchmarks.jar AssignBenchmark -f 2 -wi 2 -w 2s -i 3 -r 2s -rf json -rff target/jmh.json "$@"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
