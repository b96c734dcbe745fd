/**
 * The order-statistic ranks a quantile metric reads, computed exactly. The quantile level
 * arrives as an integer number of ten-thousandths (0.95 → 9500): levels have at most four
 * decimals, so n·q = n·Q/10⁴ is a rational whose ⌈·⌉ and ⌊·⌋ must not depend on how a
 * float rounds (⌈1000 × 0.95⌉ would be 951 in floating point, if 0.95 rounded up).
 */
export interface QuantileRanks {
  /** ⌈n·q⌉: the rank of the estimate x(⌈n·q⌉). */
  estimate: number;
  /** max(1, ⌊n·q − 1.96·√(n·q·(1−q))⌋). */
  lower: number;
  /** min(n, ⌈n·q + 1.96·√(n·q·(1−q))⌉). */
  upper: number;
}

/** Ten-thousandths in one: quantile levels carry at most four decimals. */
export const QUANTILE_SCALE = 10_000;

/**
 * The level in ten-thousandths, or null when it is not a level with at most four decimals
 * strictly between 0 and 1 (the contract's rule for `quantile`).
 */
export function quantileLevel(q: number): number | null {
  if (!Number.isFinite(q) || q <= 0 || q >= 1) return null;
  const scaled = Math.round(q * QUANTILE_SCALE);
  // A level with four decimals is the double nearest scaled/10⁴; anything else is refused.
  return scaled / QUANTILE_SCALE === q ? scaled : null;
}

/**
 * Ranks (1-based) for n ≥ 1 sorted values at level Q/10⁴. The bounds' square roots are never
 * taken: k ≤ n·q − 1.96·s holds exactly when u = 10⁴·(n·q − k) = n·Q − 10⁴·k is ≥ 0 and
 * u²·10⁴ ≥ 196²·n·Q·(10⁴ − Q) (both sides scaled by 10¹²), and the mirror test for the upper
 * bound; a float estimate of each bound is then corrected step by step with that test.
 */
export function quantileRanks(n: number, level: number): QuantileRanks {
  if (!Number.isSafeInteger(n) || n < 1)
    throw new RangeError(`quantile ranks need n ≥ 1, got ${n}`);
  if (!Number.isInteger(level) || level <= 0 || level >= QUANTILE_SCALE)
    throw new RangeError(`quantile level must be in (0, ${QUANTILE_SCALE}), got ${level}`);
  const scale = BigInt(QUANTILE_SCALE);
  const nq = BigInt(n) * BigInt(level); // 10⁴·n·q
  const spread = 196n * 196n * BigInt(n) * BigInt(level) * (scale - BigInt(level));
  const farEnough = (gap: bigint) => gap >= 0n && gap * gap * scale >= spread;
  const estimate = Number((nq + scale - 1n) / scale);
  const q = level / QUANTILE_SCALE;
  const s = 1.96 * Math.sqrt(n * q * (1 - q));
  // Largest k with nq − k ≥ 1.96·s, and smallest k with k − nq ≥ 1.96·s.
  let lower = BigInt(Math.floor(n * q - s));
  while (!farEnough(nq - lower * scale)) lower -= 1n;
  while (farEnough(nq - (lower + 1n) * scale)) lower += 1n;
  let upper = BigInt(Math.ceil(n * q + s));
  while (!farEnough(upper * scale - nq)) upper += 1n;
  while (farEnough((upper - 1n) * scale - nq)) upper -= 1n;
  return {
    estimate: Math.min(n, Math.max(1, estimate)),
    lower: Math.max(1, Number(lower)),
    upper: Math.min(n, Number(upper)),
  };
}
