#!/usr/bin/env bash
# Regenerates docs/images/results.png, the README's screenshot of a results page: the decision
# browser test's first test (three-arms: ship fast, slim breaking the latency guardrail) saves it
# as apps/dashboard/test-artifacts/results-decision.png, against the real server on PGlite.
set -euo pipefail
cd "$(dirname "$0")/.."
rm -f apps/dashboard/test-artifacts/results-decision.png
npx vitest run --project dashboard apps/dashboard/test/decision.test.ts -t 'shows the verdict'
cp apps/dashboard/test-artifacts/results-decision.png docs/images/results.png
