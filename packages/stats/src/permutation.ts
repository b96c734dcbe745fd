import { meanDifference } from './mean-difference.ts';
import { sampleArms } from './moments.ts';
import { degenerate, type StatReason, type TwoSampleResult } from './result.ts';
import { createRng, type Rng } from './rng.ts';

/** The seed used when the caller gives none: results must be reproducible run to run. */
export const DEFAULT_PERMUTATION_SEED = 0x5eed1234;

export interface PermutationOptions {
  /** The plan's max_permutations. */
  maxPermutations: number;
  /** The plan's max_sample_per_arm: larger arms are sampled down to this many users. */
  maxSamplePerArm: number;
  seed?: number;
}

export interface PermutationResult extends TwoSampleResult<'permutation'> {
  /** Random permutations drawn, or the number of distinct splits when enumerated exactly. */
  permutations_used: number;
  /** True when at least one arm was sampled down to maxSamplePerArm. */
  sample_cap_used: boolean;
  /** True when every split of the pooled users was enumerated (their count <= maxPermutations). */
  exact: boolean;
}

/**
 * Two-sided permutation test of the difference in means, statistic |mean_T − mean_C|.
 * Monte Carlo p = (b + 1)/(m + 1) with b the permutations at least as extreme as observed
 * (never 0, valid for a random subset of permutations); when all C(N, n_small) splits fit in
 * maxPermutations they are enumerated and p = b/C(N, n_small) (scipy's exact case).
 * `statistic` is the observed difference on the (possibly sampled) users that were permuted;
 * effect and its Welch 95% CI use every user passed in, so sampling only costs the p-value
 * precision. The sample depends on the input order: pass users in a stable order (e.g. by id).
 */
export function permutationTest(
  control: readonly number[],
  treatment: readonly number[],
  options: PermutationOptions,
): PermutationResult {
  const nC = control.length;
  const nT = treatment.length;
  const maxPerm = Math.floor(options.maxPermutations);
  const cap = Math.floor(options.maxSamplePerArm);
  if (!(maxPerm >= 1) || !(cap >= 2)) return fail('invalid_input', nC, nT);
  const arms = sampleArms(control, treatment);
  if (!arms.ok) return fail(arms.reason, nC, nT, arms.means);
  const { control: mc, treatment: mt } = arms;

  const rng = createRng(options.seed ?? DEFAULT_PERMUTATION_SEED);
  const c = sampleDown(control, cap, rng);
  const t = sampleDown(treatment, cap, rng);
  const sampled = c.length < nC || t.length < nT;
  const pooled = new Float64Array(c.length + t.length);
  pooled.set(c, 0);
  pooled.set(t, c.length);

  const base = {
    test: 'permutation' as const,
    ...meanDifference(mc, mt),
    sample_cap_used: sampled,
  };

  const stat = new SplitStatistic(pooled, c.length);
  const observed = stat.diffOfFirst(sumOf(c), c.length);
  if (stat.allEqual) {
    return {
      ...base,
      ok: false,
      reason: 'zero_variance',
      statistic: 0,
      p_value: 1,
      permutations_used: 0,
      exact: false,
    };
  }
  const splits = binomialUpTo(pooled.length, stat.k, maxPerm);
  const counted =
    splits <= maxPerm ? enumerate(stat, observed) : sampleSplits(stat, observed, maxPerm, rng);
  return { ...base, ok: true, reason: null, statistic: observed, ...counted };
}

function fail(
  reason: StatReason,
  nC: number,
  nT: number,
  means?: { control: number; treatment: number },
): PermutationResult {
  return {
    ...degenerate('permutation', reason, nC, nT, means),
    permutations_used: 0,
    sample_cap_used: false,
    exact: false,
  };
}

/**
 * The statistic of a split is a function of the sum of the k users drawn into the smaller
 * arm alone, so each permutation costs O(k). `gamma` absorbs the rounding of sums taken in
 * different orders: splits equal to the observed one must count as "at least as extreme".
 */
class SplitStatistic {
  readonly k: number;
  readonly total: number;
  readonly gamma: number;
  readonly allEqual: boolean;
  private readonly smallIsControl: boolean;
  private readonly nOther: number;

  constructor(
    readonly pooled: Float64Array,
    private readonly nControl: number,
  ) {
    const nTreatment = pooled.length - nControl;
    this.smallIsControl = nControl <= nTreatment;
    this.k = Math.min(nControl, nTreatment);
    this.nOther = pooled.length - this.k;
    let total = 0;
    let absTotal = 0;
    let allEqual = true;
    for (const v of pooled) {
      total += v;
      absTotal += Math.abs(v);
      if (v !== pooled[0]) allEqual = false;
    }
    this.total = total;
    this.allEqual = allEqual;
    this.gamma = (1e-12 * absTotal) / this.k;
  }

  /** treatment − control when the first `count` users summing to `sumFirst` are the control arm. */
  diffOfFirst(sumFirst: number, count: number): number {
    const nT = this.pooled.length - this.nControl;
    return (this.total - sumFirst) / nT - sumFirst / count;
  }

  /** treatment − control when the small arm's users sum to `sumSmall`. */
  diffOfSmall(sumSmall: number): number {
    const rest = (this.total - sumSmall) / this.nOther;
    const small = sumSmall / this.k;
    return this.smallIsControl ? rest - small : small - rest;
  }
}

function enumerate(
  stat: SplitStatistic,
  observed: number,
): { p_value: number; permutations_used: number; exact: boolean } {
  const { pooled, k, gamma } = stat;
  const n = pooled.length;
  const threshold = Math.abs(observed) - gamma;
  const idx = Array.from({ length: k }, (_, i) => i);
  let splits = 0;
  let extreme = 0;
  for (;;) {
    let s = 0;
    for (const i of idx) s += pooled[i] as number;
    splits++;
    if (Math.abs(stat.diffOfSmall(s)) >= threshold) extreme++;
    // Next k-combination in lexicographic order.
    let pos = k - 1;
    while (pos >= 0 && idx[pos] === n - k + pos) pos--;
    if (pos < 0) break;
    idx[pos] = (idx[pos] as number) + 1;
    for (let j = pos + 1; j < k; j++) idx[j] = (idx[j - 1] as number) + 1;
  }
  return { p_value: Math.min(1, extreme / splits), permutations_used: splits, exact: true };
}

function sampleSplits(
  stat: SplitStatistic,
  observed: number,
  m: number,
  rng: Rng,
): { p_value: number; permutations_used: number; exact: boolean } {
  const work = Float64Array.from(stat.pooled);
  const n = work.length;
  const { k } = stat;
  const threshold = Math.abs(observed) - stat.gamma;
  let extreme = 0;
  for (let r = 0; r < m; r++) {
    // A partial Fisher–Yates draws a uniform k-subset whatever order `work` is left in.
    let s = 0;
    for (let i = 0; i < k; i++) {
      const j = i + rng.nextInt(n - i);
      const v = work[j] as number;
      work[j] = work[i] as number;
      work[i] = v;
      s += v;
    }
    if (Math.abs(stat.diffOfSmall(s)) >= threshold) extreme++;
  }
  return { p_value: Math.min(1, (extreme + 1) / (m + 1)), permutations_used: m, exact: false };
}

/** A uniform random subset of `cap` values (all of them, in order, when the arm is small enough). */
function sampleDown(values: readonly number[], cap: number, rng: Rng): Float64Array {
  const out = Float64Array.from(values);
  if (out.length <= cap) return out;
  for (let i = 0; i < cap; i++) {
    const j = i + rng.nextInt(out.length - i);
    const v = out[j] as number;
    out[j] = out[i] as number;
    out[i] = v;
  }
  return out.slice(0, cap);
}

function sumOf(values: Float64Array): number {
  let s = 0;
  for (const v of values) s += v;
  return s;
}

/** C(n, k), or any value above `limit` as soon as it is exceeded (the exact count is not needed then). */
function binomialUpTo(n: number, k: number, limit: number): number {
  let c = 1;
  for (let i = 1; i <= k; i++) {
    c = (c * (n - k + i)) / i;
    if (c > limit) return c;
  }
  return c;
}
