#!/usr/bin/env bash
# The targeting goal (>= 0.5x): assign() behind the five-clause targeting condition against assign()
# without one, in the same run: JMH (wall clock, 2 forks x 3 iterations of 2 s after 2 warm-ups),
# then TargetingProbe (the calling thread's CPU time, the sides alternating). Builds first.
# JMH also runs the targeted call with the defaults (exposures and targeting tallies on, every
# user seen once already): what the tallies cost beside the exposures. And the targeted call
# with PreparedAttributes, built once per user before the runs and built in every call.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=build.sh
. "$here/build.sh"
java -jar target/benchmarks.jar 'AssignBenchmark.arbiterAssign(WithoutExposures|Targeted|TargetedWithExposures|TargetedPrepared|TargetedPreparedPerCall)$' \
  -f 2 -wi 2 -w 2s -i 3 -r 2s -rf json -rff target/jmh-targeting.json "$@" | tail -5
echo "load average after JMH: $(cut -d' ' -f1-3 /proc/loadavg)"
node -e '
const runs = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
const score = (name) => runs.find((r) => r.benchmark.endsWith("." + name)).primaryMetric.score;
const ratio = score("arbiterAssignTargeted") / score("arbiterAssignWithoutExposures");
console.log(`JMH arbiterAssignTargeted / arbiterAssignWithoutExposures: ${ratio.toFixed(2)} (goal >= 0.5)`);
const exposed = score("arbiterAssignTargetedWithExposures") / score("arbiterAssignWithoutExposures");
console.log(`JMH arbiterAssignTargetedWithExposures / arbiterAssignWithoutExposures: ${exposed.toFixed(2)}`);
for (const name of ["arbiterAssignTargetedPrepared", "arbiterAssignTargetedPreparedPerCall"]) {
  const r = score(name) / score("arbiterAssignWithoutExposures");
  console.log(`JMH ${name} / arbiterAssignWithoutExposures: ${r.toFixed(2)}`);
}
' target/jmh-targeting.json
java -cp target/benchmarks.jar dev.arbiter.bench.TargetingProbe 5 20000000
echo "load average after the probe: $(cut -d' ' -f1-3 /proc/loadavg)"
