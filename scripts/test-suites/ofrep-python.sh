#!/usr/bin/env bash
# OFREP through OpenFeature's generic Python provider (openfeature-provider-ofrep with
# openfeature-sdk, installed into .venv by scripts/python-env.sh), unchanged, against the real
# server: apps/server/test/routes/ofrep/test_generic_provider.py, which starts `arbiter serve`
# itself (with the Python client's test support).
set -euo pipefail
# shellcheck source=../lib/python-suite.sh
. "$(dirname "$0")/../lib/python-suite.sh"
python_suite ofrep-python.sh "${1:-}"
exec "$py" -m pytest -q -p no:cacheprovider --junitxml="$results/ofrep-python.xml" \
  -o junit_suite_name=ofrep-python apps/server/test/routes/ofrep/test_generic_provider.py
