import { summarizeWithCovariate } from './covariate-summary.ts';
import type { QuantileArm } from './quantile.ts';
import { quantileRanks } from './quantile-ranks.ts';

/**
 * A quantile arm from its users' call values in memory (one list per exposed user, empty for
 * a user without calls): the reference for the SQL that builds the same summary from stored
 * calls, and for tests. An arm without calls has no order statistics: NaN, which
 * `quantileTest` never reads (it answers `empty_arm` first).
 */
export function summarizeQuantileArm(
  users: readonly (readonly number[])[],
  level: number,
): QuantileArm {
  const sorted = users.flat().sort((a, b) => a - b);
  const n = sorted.length;
  const at = (rank: number) => sorted[rank - 1] as number;
  const ranks = n > 0 ? quantileRanks(n, level) : null;
  const estimate = ranks ? at(ranks.estimate) : Number.NaN;
  const below = users.map((calls) => calls.filter((v) => v <= estimate).length);
  return {
    calls: n,
    estimate,
    lower: ranks ? at(ranks.lower) : Number.NaN,
    upper: ranks ? at(ranks.upper) : Number.NaN,
    clusters: summarizeWithCovariate(
      below,
      users.map((calls) => calls.length),
    ),
  };
}
