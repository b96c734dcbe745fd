import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { testPython } from './test-python.ts';

const ORACLE = fileURLToPath(new URL('../../oracle/oracle.py', import.meta.url));
/** GrowthBook's gbstats, for CUPED and the confidence sequences. */
export const GBSTATS_ORACLE = fileURLToPath(
  new URL('../../oracle/gbstats_oracle.py', import.meta.url),
);

export interface OracleReply {
  versions: Record<string, string>;
  results: Record<string, unknown>[];
}

/**
 * Runs oracle/oracle.py once for every case. A missing interpreter or missing scipy is a
 * failure, never a skip: the golden comparisons are the point of this package's tests.
 */
export function runOracle(
  cases: readonly Record<string, unknown>[],
  script: string = ORACLE,
): OracleReply {
  const python = testPython();
  const run = spawnSync(python, [script], {
    input: JSON.stringify({ cases }),
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
  });
  if (run.error || run.status !== 0) {
    const why = run.error ? `${run.error.message}; ` : '';
    throw new Error(
      `stats oracle failed: ${python} ${script} (${why}exit status ${run.status}).\n${(run.stderr ?? '').trim()}\nSet ARBITER_PYTHON to a Python with packages/stats/oracle/requirements.txt installed.`,
    );
  }
  const reply = JSON.parse(run.stdout) as OracleReply;
  if (reply.results.length !== cases.length) {
    throw new Error(`stats oracle: ${reply.results.length} results for ${cases.length} cases`);
  }
  return reply;
}

/** |actual − expected| <= abs + rel·|expected|, with the tolerance in the failure message. */
export function closeTo(actual: number, expected: unknown, rel: number, abs = 0): boolean {
  if (typeof expected !== 'number') return false;
  return Math.abs(actual - expected) <= abs + rel * Math.abs(expected);
}
