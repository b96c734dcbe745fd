#!/usr/bin/env bash
# The Python client's suite (clients/python): installs the library into the project's .venv and
# runs pytest; then its OpenFeature provider's (clients/python-openfeature, on the OpenFeature SDK
# that scripts/python-env.sh installs), in the same run since both install the client into the
# one .venv, as its own report (python-openfeature.xml). The static checks — vermin (nothing newer than Python 3.8), mypy --strict, and
# ruff (`ruff format --check` and `ruff check`, settings in its pyproject.toml) — are test cases of
# that run (tests/test_static_checks.py), so a failure of any is a failing testcase in the JUnit
# report and counts in the closing `all suites:` line. The real-server tests start `arbiter serve` themselves.
set -euo pipefail
# shellcheck source=../lib/python-suite.sh
. "$(dirname "$0")/../lib/python-suite.sh"
python_suite python-client.sh "${1:-}"
# The library as a user gets it: built by its own backend from its pyproject, installed afresh
# every run so the tests import exactly the current sources.
"$py" -m pip install --quiet --disable-pip-version-check --no-deps --no-build-isolation \
  --force-reinstall clients/python >&2
# The speedups extra's C table (clients/python-speedups), compiled here with its own build
# backend (setuptools, fetched into pip's isolated build environment): the tests run every
# exposure-table case on it and on the pure-Python table.
"$py" -m pip install --quiet --disable-pip-version-check --no-deps --force-reinstall clients/python-speedups >&2
# The provider as a user gets it, on the client just installed.
"$py" -m pip install --quiet --disable-pip-version-check --no-deps --no-build-isolation \
  --force-reinstall clients/python-openfeature >&2
status=0
(cd clients/python && "$py" -m pytest -q -p no:cacheprovider --durations=20 \
  --junitxml="$results/python-client.xml" -o junit_suite_name=python-client) || status=$?
(cd clients/python-openfeature && "$py" -m pytest -q -p no:cacheprovider \
  --junitxml="$results/python-openfeature.xml" -o junit_suite_name=python-openfeature) || status=$?
exit "$status"
