export interface Histogram {
  /** bins + 1 increasing edges; empty when no arm has a finite value. */
  bin_edges: number[];
  /** Per arm, one count per bin. */
  counts: Record<string, number[]>;
}

export const DEFAULT_HISTOGRAM_BINS = 20;

/**
 * Histograms of several arms over shared, equal-width bin edges spanning the pooled finite
 * minimum and maximum — numpy.histogram(values, bins, range=(min, max)) per arm: bins are
 * [a, b) except the last, which is closed; a single distinct value v gets the range
 * [v − 0.5, v + 0.5]. Shared edges are what make the arms comparable on one chart.
 * Non-finite values are not counted anywhere.
 */
export function histogram(
  arms: Readonly<Record<string, readonly number[]>>,
  bins: number = DEFAULT_HISTOGRAM_BINS,
): Histogram {
  const k = Number.isSafeInteger(bins) && bins >= 1 ? bins : DEFAULT_HISTOGRAM_BINS;
  let lo = Number.POSITIVE_INFINITY;
  let hi = Number.NEGATIVE_INFINITY;
  for (const values of Object.values(arms)) {
    for (const v of values) {
      if (!Number.isFinite(v)) continue;
      if (v < lo) lo = v;
      if (v > hi) hi = v;
    }
  }
  const counts: Record<string, number[]> = {};
  if (lo > hi) {
    for (const arm of Object.keys(arms)) counts[arm] = [];
    return { bin_edges: [], counts };
  }
  if (lo === hi) {
    lo -= 0.5;
    hi += 0.5;
    // At |v| ≳ 2^53 ± 0.5 is v itself; widen relatively so the edges still increase.
    if (lo === hi) {
      lo -= Math.abs(lo) * 1e-9;
      hi += Math.abs(hi) * 1e-9;
    }
  }
  const edges = binEdges(lo, hi, k);
  for (const [arm, values] of Object.entries(arms)) counts[arm] = countInto(values, edges, k);
  return { bin_edges: edges, counts };
}

/** numpy.linspace(lo, hi, k + 1), halved first when hi − lo would overflow. */
function binEdges(lo: number, hi: number, k: number): number[] {
  const halve = !Number.isFinite(hi - lo);
  const step = halve ? (hi / 2 - lo / 2) / k : (hi - lo) / k;
  const edges = new Array<number>(k + 1);
  for (let i = 0; i <= k; i++) edges[i] = halve ? 2 * (i * step + lo / 2) : i * step + lo;
  edges[k] = hi;
  return edges;
}

/** numpy's equal-width binning: a direct index guess, then a fix-up against the actual edges. */
function countInto(values: readonly number[], edges: number[], k: number): number[] {
  const out = new Array<number>(k).fill(0);
  const lo = edges[0] as number;
  const hi = edges[k] as number;
  const halve = !Number.isFinite(hi - lo);
  const norm = halve ? k / (hi / 2 - lo / 2) : k / (hi - lo);
  for (const v of values) {
    if (!Number.isFinite(v) || v < lo || v > hi) continue;
    let i = Math.floor(halve ? (v / 2 - lo / 2) * norm : (v - lo) * norm);
    if (i >= k) i = k - 1;
    if (i < 0) i = 0;
    if (v < (edges[i] as number)) i--;
    else if (i !== k - 1 && v >= (edges[i + 1] as number)) i++;
    out[i] = (out[i] as number) + 1;
  }
  return out;
}
