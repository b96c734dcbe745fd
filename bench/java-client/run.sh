#!/usr/bin/env bash
# Builds the client and the benchmark, then runs JMH once (short: the machine is shared).
# Every dependency, the LaunchDarkly baseline included, comes from Maven Central.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=build.sh
. "$here/build.sh"
# 2 forks x 3 measured iterations of 2 s after 2 warm-ups: enough for a ratio, short on a shared machine.
java -jar target/benchmarks.jar AssignBenchmark -f 2 -wi 2 -w 2s -i 3 -r 2s -rf json -rff target/jmh.json "$@"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
# The ratios, from the same run's scores (the machine is noisy: compare only within one run).
node -e '
const all = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
// One block per number of users (the users parameter), each compared within itself.
for (const users of [...new Set(all.map((r) => r.params?.users ?? "16384"))]) {
const runs = all.filter((r) => (r.params?.users ?? "16384") === users);
console.log(`users=${users}:`);
const score = (name) => runs.find((r) => r.benchmark.endsWith("." + name))?.primaryMetric.score;
const baseline = score("launchDarklyVariation");
for (const name of ["arbiterAssign", "arbiterAssignWithoutExposures"]) {
  const own = score(name);
  if (own && baseline) console.log(`${name}: ${(own / baseline).toFixed(1)}x launchDarklyVariation`);
}
const targeted = score("arbiterAssignTargeted");
const plain = score("arbiterAssignWithoutExposures");
if (targeted && plain) console.log(`arbiterAssignTargeted / arbiterAssignWithoutExposures: ${(targeted / plain).toFixed(2)} (goal >= 0.5)`);
const exposed = score("arbiterAssign");
if (exposed && plain) console.log(`arbiterAssign / arbiterAssignWithoutExposures: ${(exposed / plain).toFixed(2)} (goal >= 0.5 at 1048576 users)`);
}
' target/jmh.json
