import {
  type CovariateSummary,
  covariateMoments,
  covariateSummary,
  mergeCovariateSummaries,
  metricSummary,
} from './covariate-summary.ts';
import type { Moments } from './moments.ts';
import { liftOf } from './result.ts';
import type { Estimate } from './sequential.ts';
import { meanDifference } from './summary.ts';
import {
  estimateFromMoments,
  type WelchResult,
  welchEstimate,
  welchFromMoments,
  welchTest,
} from './welch.ts';

export interface CupedReport {
  /** Pooled regression coefficient of y on x over both arms; 0 when x or y has no spread. */
  theta: number;
  /** 1 − Var(adjusted effect)/Var(unadjusted effect): the share of variance removed. */
  variance_reduction: number;
  /** Share of the users (both arms) who had pre-period data; the rest entered with x = 0. */
  covariate_coverage: number;
}

export interface CupedResult extends WelchResult {
  cuped: CupedReport;
  /** The same metric without the adjustment, reported beside it. */
  unadjusted: WelchResult;
  /** The adjusted effect and its variance, for the confidence sequence; null when degenerate. */
  estimate: Estimate | null;
}

/**
 * CUPED (Deng, Xu, Kohavi & Walker 2013) from sufficient statistics, as GrowthBook's
 * gbstats 0.8.0 computes it (RegressionAdjustedStatistic + TwoSidedTTest, absolute):
 *  - θ = Cov(x, y)/Var(x) over both arms pooled (the same θ for every arm, so the adjustment
 *    cannot move the effect by itself: it subtracts θ·(x̄_T − x̄_C), zero in expectation);
 *  - per arm, ȳ − θ·x̄ with variance Var(y) + θ²Var(x) − 2θ·Cov(x, y) (sample, n − 1);
 *  - Welch's t on those, with its Welch–Satterthwaite df and 95% t-interval.
 * `lift` divides the adjusted effect by the unadjusted control mean (gbstats' relative
 * point estimate). Users without pre-period data are in the summaries with x = 0.
 */
export function cupedTest(control: CovariateSummary, treatment: CovariateSummary): CupedResult {
  const unadjusted = welchTest(metricSummary(control), metricSummary(treatment));
  const n = control.n + treatment.n;
  const coverage = n > 0 ? (control.nWithCovariate + treatment.nWithCovariate) / n : 0;
  const c = covariateMoments(control);
  const t = covariateMoments(treatment);
  const pooled = covariateMoments(mergeCovariateSummaries(control, treatment));
  const theta = pooled.m2X > 0 && pooled.m2Y > 0 ? pooled.cXY / pooled.m2X : 0;
  const finite = [c, t].every((m) =>
    [m.meanX, m.meanY, m.m2X, m.m2Y, m.cXY].every(Number.isFinite),
  );
  if (!unadjusted.ok || !finite || !Number.isFinite(theta)) {
    return {
      ...unadjusted,
      cuped: {
        theta: Number.isFinite(theta) ? theta : 0,
        variance_reduction: 0,
        covariate_coverage: coverage,
      },
      unadjusted,
      estimate: null,
    };
  }
  const adjusted = (m: typeof c): Moments => {
    const m2 = Math.max(0, m.m2Y + theta * theta * m.m2X - 2 * theta * m.cXY);
    return { n: m.n, mean: m.meanY - theta * m.meanX, sd: Math.sqrt(m2 / (m.n - 1)) };
  };
  const ac = adjusted(c);
  const at = adjusted(t);
  const effect =
    meanDifference(metricSummary(control), metricSummary(treatment)) -
    theta * meanDifference(covariateSummary(control), covariateSummary(treatment));
  const result = welchFromMoments(ac, at, effect);
  const estimate = estimateFromMoments(ac, at, effect);
  const unadjustedVariance =
    welchEstimate(metricSummary(control), metricSummary(treatment))?.variance ?? 0;
  const reduction =
    estimate && unadjustedVariance > 0 ? 1 - estimate.variance / unadjustedVariance : 0;
  return {
    ...result,
    lift: liftOf(result.effect, c.meanY),
    cuped: { theta, variance_reduction: reduction, covariate_coverage: coverage },
    unadjusted,
    estimate,
  };
}
