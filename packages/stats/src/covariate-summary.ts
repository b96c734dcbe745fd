import { CompensatedSum, centred, centreOf, recentre } from './summary.ts';

/**
 * The mergeable per-arm summary CUPED runs on: y is the metric over the analysis window, x
 * the same metric over the pre-period (the covariate). Sums are of x − shiftX and y − shiftY,
 * as for ArmSummary (absent shifts are 0: the raw sums SQL returns).
 *
 * Users without pre-period data enter with x = 0, as GrowthBook does (its covariate column
 * is `COALESCE(pre_value, 0)`); `nWithCovariate` counts those who had some, which is what
 * `covariate_coverage` reports.
 */
export interface CovariateSummary {
  n: number;
  nWithCovariate: number;
  sumX: number;
  sumY: number;
  sumXX: number;
  sumYY: number;
  sumXY: number;
  shiftX?: number;
  shiftY?: number;
}

/** n, means, centred sums of squares and the centred co-moment Σ(x − x̄)(y − ȳ). */
export interface CovariateMoments {
  n: number;
  meanX: number;
  meanY: number;
  m2X: number;
  m2Y: number;
  cXY: number;
}

export const EMPTY_COVARIATE_SUMMARY: CovariateSummary = Object.freeze({
  n: 0,
  nWithCovariate: 0,
  sumX: 0,
  sumY: 0,
  sumXX: 0,
  sumYY: 0,
  sumXY: 0,
  shiftX: 0,
  shiftY: 0,
});

/** The y part alone, as the summary the unadjusted tests take. */
export function metricSummary(s: CovariateSummary) {
  return { n: s.n, sum: s.sumY, sumSquares: s.sumYY, shift: s.shiftY ?? 0 };
}

/** The x part alone (the covariate as an ArmSummary). */
export function covariateSummary(s: CovariateSummary) {
  return { n: s.n, sum: s.sumX, sumSquares: s.sumXX, shift: s.shiftX ?? 0 };
}

/**
 * Two-pass, compensated, centred on the means. `covariate[i]` is user i's pre-period value,
 * null (or NaN) when the user has none: imputed as 0.
 */
export function summarizeWithCovariate(
  metric: readonly number[],
  covariate: readonly (number | null)[],
): CovariateSummary {
  const n = metric.length;
  if (n === 0 || covariate.length !== n) return { ...EMPTY_COVARIATE_SUMMARY, n };
  const xs = covariate.map((x) => (x === null || Number.isNaN(x) ? 0 : x));
  const nWithCovariate = covariate.filter((x) => x !== null && !Number.isNaN(x)).length;
  const finiteOr0 = (v: number) => (Number.isFinite(v) ? v : 0);
  const shiftX = finiteOr0(centreOf(xs));
  const shiftY = finiteOr0(centreOf(metric));
  const sums = [new CompensatedSum(), new CompensatedSum(), new CompensatedSum()];
  const squares = [new CompensatedSum(), new CompensatedSum()];
  for (let i = 0; i < n; i++) {
    const dx = (xs[i] as number) - shiftX;
    const dy = (metric[i] as number) - shiftY;
    sums[0]?.add(dx);
    sums[1]?.add(dy);
    sums[2]?.add(dx * dy);
    squares[0]?.add(dx * dx);
    squares[1]?.add(dy * dy);
  }
  const [sx, sy, sxy] = sums.map((s) => s.value()) as [number, number, number];
  const [sxx, syy] = squares.map((s) => s.value()) as [number, number];
  return {
    n,
    nWithCovariate,
    sumX: sx,
    sumY: sy,
    sumXX: sxx,
    sumYY: syy,
    sumXY: sxy,
    shiftX,
    shiftY,
  };
}

export function covariateMoments(s: CovariateSummary): CovariateMoments {
  const x = centred(covariateSummary(s));
  const y = centred(metricSummary(s));
  if (s.n === 0) return { n: 0, meanX: 0, meanY: 0, m2X: 0, m2Y: 0, cXY: 0 };
  // Σ(x − x̄)(y − ȳ) = Σ dx·dy − Σdx·Σdy/n in the shifted frame.
  const cXY = s.sumXY - s.sumX * (s.sumY / s.n);
  return {
    n: s.n,
    meanX: x.mean,
    meanY: y.mean,
    m2X: x.m2,
    m2Y: y.m2,
    cXY: x.m2 === 0 || y.m2 === 0 ? 0 : cXY,
  };
}

/**
 * Disjoint sets of users combined by Chan et al.'s pairwise update, the co-moment with
 * C = Ca + Cb + δx·δy·na·nb/n, in the frame of the first part's shifts.
 */
export function mergeCovariateSummaries(...parts: readonly CovariateSummary[]): CovariateSummary {
  const nonEmpty = parts.filter((p) => p.n > 0);
  const first = nonEmpty[0];
  if (!first) return { ...EMPTY_COVARIATE_SUMMARY };
  const frameX = first.shiftX ?? 0;
  const frameY = first.shiftY ?? 0;
  let n = 0;
  let nWithCovariate = 0;
  let offX = 0;
  let offY = 0;
  let m2X = 0;
  let m2Y = 0;
  let cXY = 0;
  for (const p of nonEmpty) {
    const m = covariateMoments(p);
    const pX = (p.shiftX ?? 0) - frameX + p.sumX / p.n;
    const pY = (p.shiftY ?? 0) - frameY + p.sumY / p.n;
    const total = n + p.n;
    const dX = pX - offX;
    const dY = pY - offY;
    const weight = (n / total) * p.n;
    m2X += m.m2X + dX * dX * weight;
    m2Y += m.m2Y + dY * dY * weight;
    cXY += m.cXY + dX * dY * weight;
    offX += (dX * p.n) / total;
    offY += (dY * p.n) / total;
    n = total;
    nWithCovariate += p.nWithCovariate;
  }
  const x = recentre(n, frameX, offX, m2X);
  const y = recentre(n, frameY, offY, m2Y);
  return {
    n,
    nWithCovariate,
    sumX: x.sum,
    sumY: y.sum,
    sumXX: x.sumSquares,
    sumYY: y.sumSquares,
    sumXY: cXY + (x.sum * y.sum) / n,
    shiftX: x.shift ?? 0,
    shiftY: y.shift ?? 0,
  };
}
