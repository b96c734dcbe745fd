import betainc from '@stdlib/math-base-special-betainc';
import erfc from '@stdlib/math-base-special-erfc';
import erfcinv from '@stdlib/math-base-special-erfcinv';
import gammainc from '@stdlib/math-base-special-gammainc';
import gammaln from '@stdlib/math-base-special-gammaln';
import tQuantile from '@stdlib/stats-base-dists-t-quantile';

// Every tail here is evaluated directly. `1 - cdf` would round to 0 wherever the true
// p-value is below ~1e-16, and the pipeline must tell 1e-20 from 1e-89 apart (BH, display).

/** scipy.stats.norm.ppf(0.975). */
export const Z_975 = 1.959963984540054;
/** scipy.stats.norm.ppf(0.8): the quantile of 80 % power. */
export const Z_80 = 0.8416212335729143;

/** Two-sided normal tail P(|Z| >= |z|) = erfc(|z|/√2). Non-finite z maps to the limit. */
export function normalTwoSidedP(z: number): number {
  if (Number.isNaN(z)) return 1;
  return Math.min(1, erfc(Math.abs(z) / Math.SQRT2));
}

/**
 * Two-sided Student-t tail P(|T| >= |t|) for df > 0.
 * With x = df/(df+t²) the tail is I_x(df/2, 1/2); near t = 0 the complement form
 * I_{1-x}(1/2, df/2, upper) is used instead so that small |t| keeps its precision. Both
 * are tails evaluated by betainc itself; x and 1-x are formed from r = √df/|t| so that
 * neither t² nor df overflows.
 */
export function studentTTwoSidedP(t: number, df: number): number {
  if (Number.isNaN(t) || !(df > 0)) return 1;
  const at = Math.abs(t);
  if (at === 0) return 1;
  if (at === Number.POSITIVE_INFINITY) return 0;
  const halfDf = Math.min(df, 1e300) / 2;
  const r = Math.sqrt(Math.min(df, 1e300)) / at;
  if (r < 1) {
    // |t| large: x = r²/(1+r²) is the small argument, the lower tail in it is the p-value.
    const x = (r * r) / (1 + r * r);
    return clampP(betainc(x, halfDf, 0.5));
  }
  const s = at / Math.sqrt(Math.min(df, 1e300));
  const y = (s * s) / (1 + s * s);
  return clampP(betainc(y, 0.5, halfDf, true, true));
}

/** Upper tail of the chi-square distribution, Q(df/2, x/2). */
export function chiSquareUpperP(x: number, df: number): number {
  if (Number.isNaN(x) || !(df > 0)) return 1;
  if (x <= 0) return 1;
  if (x === Number.POSITIVE_INFINITY) return 0;
  return clampP(gammainc(x / 2, df / 2, true, true));
}

/**
 * The 0.975 quantile of Student's t. stdlib returns 0 for df ≳ 1e300 and NaN for Infinity,
 * and for df past 1e15 the t quantile equals the normal one to double precision.
 */
export function tQuantile975(df: number): number {
  if (!(df > 0)) return Number.NaN;
  if (df > 1e15) return Z_975;
  const q = tQuantile(0.975, df);
  return Number.isFinite(q) && q > 0 ? q : Z_975;
}

/**
 * The p quantile of Student's t on df degrees of freedom (scipy's `t.ppf(p, df)`) to ~1e-15
 * relative. stdlib's quantile is only good to ~3e-9 relative; it is the start of Newton steps
 * on a tail that betainc evaluates directly: P(T > t) = studentTTwoSidedP(t, df)/2 in the tails,
 * P(0 < T < t) = I_y(1/2, df/2)/2 with y = t²/(df+t²) near the centre (where the tail form
 * would lose t's digits), so the root is as exact as betainc. Symmetric: q(p) = −q(1 − p), taking the
 * tail probability min(p, 1 − p) as given. NaN outside 0 < p < 1 or for df ≤ 0.
 */
export function studentTQuantile(p: number, df: number): number {
  if (!(p > 0 && p < 1) || !(df > 0)) return Number.NaN;
  if (p === 0.5) return 0;
  const upper = p > 0.5;
  const tail = upper ? 1 - p : p;
  const central = 0.5 - tail; // P(0 < T < t), exact for tail ≥ 0.25
  if (df > 1e15) return (upper ? 1 : -1) * normalUpperQuantile(tail);
  let t = tQuantile(1 - tail, df);
  if (!(Number.isFinite(t) && t > 0)) t = normalUpperQuantile(tail);
  const useCentre = tail > 0.25;
  const logNorm = gammaln((df + 1) / 2) - gammaln(df / 2) - 0.5 * Math.log(df * Math.PI);
  for (let i = 0; i < 20; i++) {
    const y = (t * t) / (df + t * t); // 1 − x, formed directly: x is near 1 for large df
    // g(t) = P(T > t) − tail, or, near the centre, central − P(0 < T < t): both fall in t.
    const g = useCentre
      ? central - betainc(y, 0.5, df / 2) / 2
      : studentTTwoSidedP(t, df) / 2 - tail;
    const density = Math.exp(logNorm - ((df + 1) / 2) * Math.log1p((t * t) / df));
    const step = g / density;
    if (!Number.isFinite(step)) break;
    t += step;
    if (Math.abs(step) <= 1e-16 * Math.abs(t)) break;
  }
  return upper ? t : -t;
}

/** The upper-tail normal quantile: z with P(Z > z) = tail, for a start and for df past 1e15. */
function normalUpperQuantile(tail: number): number {
  return Math.SQRT2 * erfcinv(2 * tail);
}

function clampP(p: number): number {
  if (Number.isNaN(p)) return 1;
  return Math.min(1, Math.max(0, p));
}
