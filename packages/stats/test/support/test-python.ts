import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const REPO_VENV = fileURLToPath(new URL('../../../../.venv/bin/python', import.meta.url));

/**
 * The Python a test spawns, here and in the server's tests: ARBITER_PYTHON (the test command
 * sets it), else the repository's `.venv` that `scripts/python-env.sh` makes, else `python3`.
 * So a file run by hand after one test run finds the packages the suites installed instead of
 * failing on the system Python.
 */
export function testPython(): string {
  if (process.env.ARBITER_PYTHON) return process.env.ARBITER_PYTHON;
  return existsSync(REPO_VENV) ? REPO_VENV : 'python3';
}
