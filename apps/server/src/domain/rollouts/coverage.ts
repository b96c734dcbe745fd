import { createCoverage } from '@arbiter/bucketing';

/**
 * The coverage check of an experiment as the server evaluates it: undefined at full coverage
 * (absent or 1), so the common case reads no second hash; otherwise the frozen coverage hash of
 * packages/bucketing (docs/wire-format.md#coverage).
 */
export function coverageCheck(
  salt: string,
  coverage: number | undefined,
): ((userId: string) => boolean) | undefined {
  return coverage === undefined || coverage >= 1 ? undefined : createCoverage(salt, coverage);
}
