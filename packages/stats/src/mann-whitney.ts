import { normalTwoSidedP } from './distributions.ts';
import { meanDifference } from './mean-difference.ts';
import { sampleArms } from './moments.ts';
import { degenerate, type TwoSampleResult } from './result.ts';

export interface MannWhitneyResult extends TwoSampleResult<'mann_whitney'> {
  /** U of the treatment arm: pairs where treatment > control, ties counting one half. Same as `statistic`. */
  u: number;
  /** Continuity-corrected, tie-corrected normal score; positive when treatment ranks higher. */
  z: number;
}

/**
 * Mann–Whitney U, normal approximation with tie and continuity correction
 * (scipy.stats.mannwhitneyu(treatment, control, method='asymptotic', use_continuity=True)).
 * The effect is the difference in means with Welch's 95% CI: U tests stochastic ordering,
 * but decisions are read in the metric's own units.
 */
export function mannWhitneyTest(
  control: readonly number[],
  treatment: readonly number[],
): MannWhitneyResult {
  const nC = control.length;
  const nT = treatment.length;
  const arms = sampleArms(control, treatment);
  if (!arms.ok) return fail(arms.reason, nC, nT, arms.means);
  const { control: mc, treatment: mt, means } = arms;

  const { rankSumTreatment, tieTerm } = rankSums(control, treatment);
  const u = rankSumTreatment - (nT * (nT + 1)) / 2;
  const n = nC + nT;
  const mu = (nC * nT) / 2;
  const variance = ((nC * nT) / 12) * (n + 1 - tieTerm / (n * (n - 1)));
  // Rounding of tieTerm can leave a hair above zero when every value is tied.
  if (!(variance > 1e-9 * ((nC * nT) / 12) * (n + 1))) return fail('all_ties', nC, nT, means);
  const d = u - mu;
  // scipy: z = (max(U1, U2) - mu - 0.5)/s and p = min(1, 2 sf(z)); the sign is kept here.
  const z = (Math.sign(d) * Math.max(Math.abs(d) - 0.5, 0)) / Math.sqrt(variance);

  return {
    test: 'mann_whitney',
    ok: true,
    reason: null,
    statistic: u,
    p_value: normalTwoSidedP(z),
    ...meanDifference(mc, mt),
    u,
    z,
  };
}

function fail(
  reason: Parameters<typeof degenerate>[1],
  nC: number,
  nT: number,
  means?: { control: number; treatment: number },
): MannWhitneyResult {
  return { ...degenerate('mann_whitney', reason, nC, nT, means), u: 0, z: 0 };
}

/**
 * Midranks by merging the two sorted arms: typed-array sort is numeric and fast, and walking
 * both at once yields the treatment's rank sum and Σ(t³ − t) over tie groups in one pass.
 */
function rankSums(
  control: readonly number[],
  treatment: readonly number[],
): { rankSumTreatment: number; tieTerm: number } {
  const c = Float64Array.from(control).sort();
  const t = Float64Array.from(treatment).sort();
  let i = 0;
  let j = 0;
  let below = 0;
  let rankSumTreatment = 0;
  let tieTerm = 0;
  while (i < c.length || j < t.length) {
    const v = Math.min(
      i < c.length ? (c[i] as number) : Infinity,
      j < t.length ? (t[j] as number) : Infinity,
    );
    let inC = 0;
    let inT = 0;
    while (i < c.length && c[i] === v) {
      i++;
      inC++;
    }
    while (j < t.length && t[j] === v) {
      j++;
      inT++;
    }
    const g = inC + inT;
    rankSumTreatment += inT * (below + (g + 1) / 2);
    tieTerm += g * g * g - g;
    below += g;
  }
  return { rankSumTreatment, tieTerm };
}
