import { chiSquareUpperP } from './distributions.ts';
import type { StatReason } from './result.ts';

export interface ChiSquareResult {
  ok: boolean;
  reason: StatReason | null;
  statistic: number;
  df: number;
  p_value: number;
}

/**
 * Pearson chi-square goodness of fit of observed counts against expected shares
 * (scipy.stats.chisquare(observed, total * shares / sum(shares))), the SRM gate's test.
 * Shares are relative weights (percentages are fine) and are normalised here.
 * A category with share 0 and no users carries no information and is dropped (df shrinks);
 * users in a share-0 category are impossible under H0: p = 0, statistic Number.MAX_VALUE.
 */
export function chiSquareGoodnessOfFit(
  observed: readonly number[],
  expectedShares: readonly number[],
): ChiSquareResult {
  const none = (reason: StatReason, pValue = 1, statistic = 0): ChiSquareResult => ({
    ok: false,
    reason,
    statistic,
    df: 0,
    p_value: pValue,
  });
  if (observed.length !== expectedShares.length) return none('invalid_input');
  let total = 0;
  let shareTotal = 0;
  for (let i = 0; i < observed.length; i++) {
    const o = observed[i] as number;
    const s = expectedShares[i] as number;
    if (!(Number.isFinite(o) && o >= 0 && Number.isFinite(s) && s >= 0))
      return none('invalid_input');
    total += o;
    shareTotal += s;
  }
  if (!Number.isFinite(total) || !Number.isFinite(shareTotal) || shareTotal === 0) {
    return none('invalid_input');
  }
  if (total === 0) return none('no_observations');

  let statistic = 0;
  let categories = 0;
  for (let i = 0; i < observed.length; i++) {
    const o = observed[i] as number;
    const share = (expectedShares[i] as number) / shareTotal;
    if (share === 0) {
      if (o > 0) return none('observed_in_zero_share', 0, Number.MAX_VALUE);
      continue;
    }
    categories++;
    const e = total * share;
    // (o − e)·((o − e)/e) rather than (o − e)²/e: the square alone overflows first.
    const d = o - e;
    statistic += d * (d / e);
  }
  if (categories < 2) return none('too_few_categories');
  const df = categories - 1;
  // An overflowing statistic is a genuinely astronomical mismatch; MAX_VALUE keeps it JSON-safe.
  if (!Number.isFinite(statistic)) statistic = Number.MAX_VALUE;
  return { ok: true, reason: null, statistic, df, p_value: chiSquareUpperP(statistic, df) };
}
