# Shared by the test suites that run pytest against the real server (ofrep-python.sh,
# python-client.sh); sourced, not run.

# python_suite NAME RESULTS_DIR: makes RESULTS_DIR and sets $results to its absolute path, goes
# to the repository's root, sets $py to the project's Python (ARBITER_PYTHON, or the .venv that
# scripts/python-env.sh makes) and builds the npm packages of the server the tests start, when
# missing.
python_suite() {
  results="${2:?usage: $1 RESULTS_DIR}"
  mkdir -p "$results"
  results="$(cd "$results" && pwd)"
  cd "$(dirname "${BASH_SOURCE[0]}")/../.."
  py="${ARBITER_PYTHON:-$(bash scripts/python-env.sh)}"
  sh scripts/bootstrap.sh >&2
}
