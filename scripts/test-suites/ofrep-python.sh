#!/usr/bin/env bash
# OFREP through OpenFeature's generic Python provider (openfeature-provider-ofrep with
# openfeature-sdk, installed into .venv by scripts/python-env.sh), unchanged, against the real
# server: apps/server/test/routes/ofrep/test_generic_provider.py, which starts `arbiter serve`
# itself (with the Python client's test support).
set -euo pipefail
results="${1:?usage: ofrep-python.sh RESULTS_DIR}"
mkdir -p "$results"
results="$(cd "$results" && pwd)"
cd "$(dirname "$0")/../.."
py="${ARBITER_PYTHON:-$(bash scripts/python-env.sh)}"
sh scripts/bootstrap.sh >&2  # the server the tests start, when missing
exec "$py" -m pytest -q -p no:cacheprovider --junitxml="$results/ofrep-python.xml" \
  -o junit_suite_name=ofrep-python apps/server/test/routes/ofrep/test_generic_provider.py
