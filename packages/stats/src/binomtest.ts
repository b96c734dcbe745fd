import betainc from '@stdlib/math-base-special-betainc';

/**
 * The exact two-sided binomial test of k successes in n trials at p = 0.5, as
 * `scipy.stats.binomtest(k, n, 0.5).pvalue`. At p = 0.5 the distribution is symmetric, so
 * scipy's "as likely or less likely than k" region is both tails beyond min(k, n − k):
 * p = min(1, 2 · P(X ≤ min(k, n − k))), and 1 when k = n/2. The tail is the regularized
 * incomplete beta P(X ≤ j) = I_{1/2}(n − j, j + 1), evaluated directly so that tiny tails
 * keep their precision. n = 0 answers 1.
 */
export function binomTestHalf(k: number, n: number): number {
  if (!(Number.isInteger(k) && Number.isInteger(n)) || k < 0 || k > n) {
    throw new RangeError(`binomTestHalf: need integers 0 <= k <= n, got k=${k}, n=${n}`);
  }
  if (n === 0 || 2 * k === n) return 1;
  const j = Math.min(k, n - k);
  const tail = betainc(0.5, n - j, j + 1);
  return Math.min(1, 2 * tail);
}
