/**
 * Exact mean and variance of doubles with BigInt rationals: every finite double is
 * m·2^e with e >= −1074, so scaled by 2^SCALE_BITS it is an integer and the sums are exact.
 */
const SCALE_BITS = 1100n;

function exactNumerator(v: number): bigint {
  if (!Number.isFinite(v)) throw new Error(`not finite: ${v}`);
  if (v === 0) return 0n;
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, v);
  const bits = view.getBigUint64(0);
  const sign = bits >> 63n ? -1n : 1n;
  const exponentField = (bits >> 52n) & 0x7ffn;
  const fraction = bits & ((1n << 52n) - 1n);
  const mantissa = exponentField === 0n ? fraction : fraction | (1n << 52n);
  const exponent = (exponentField === 0n ? 1n : exponentField) - 1075n; // v = mantissa·2^exponent
  return sign * (mantissa << (exponent + SCALE_BITS));
}

function bitLength(v: bigint): bigint {
  return BigInt((v < 0n ? -v : v).toString(2).length);
}

/** num/den rounded to a double (64 significant bits of quotient, then one rounding). */
export function ratio(num: bigint, den: bigint): number {
  if (num === 0n) return 0;
  const negative = num < 0n !== den < 0n;
  const a = num < 0n ? -num : num;
  const b = den < 0n ? -den : den;
  const shift = bitLength(a) - bitLength(b) - 64n;
  const q = shift > 0n ? a / (b << shift) : (a << -shift) / b;
  const value = Number(q) * 2 ** Number(shift);
  return negative ? -value : value;
}

export interface ExactMoments {
  n: number;
  mean: number;
  variance: number;
  /** Σx and n·Σx² − (Σx)² at scale 2^SCALE_BITS, for exact differences of means. */
  sumScaled: bigint;
}

export function exactMoments(values: readonly number[]): ExactMoments {
  const n = BigInt(values.length);
  let s = 0n;
  let s2 = 0n;
  for (const v of values) {
    const x = exactNumerator(v);
    s += x;
    s2 += x * x;
  }
  const scale = 1n << SCALE_BITS;
  // variance = (n·Σx² − (Σx)²) / (n(n−1)) / scale²
  return {
    n: values.length,
    mean: ratio(s, n * scale),
    variance: ratio(n * s2 - s * s, n * (n - 1n) * scale * scale),
    sumScaled: s,
  };
}

/** mean(treatment) − mean(control), exactly, then rounded once. */
export function exactMeanDifference(control: ExactMoments, treatment: ExactMoments): number {
  const nC = BigInt(control.n);
  const nT = BigInt(treatment.n);
  const scale = 1n << SCALE_BITS;
  return ratio(treatment.sumScaled * nC - control.sumScaled * nT, nC * nT * scale);
}
