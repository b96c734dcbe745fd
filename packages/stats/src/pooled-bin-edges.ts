/**
 * The bin edges the analysis SQL computes over a pooled range (the `edges` CTE of the server's
 * histogram statement), for a coordinator that merged the range from several databases: the
 * same widening of a single value v to v ± 0.5 (relatively at |v| ≳ 2^53), the same linspace
 * always taken on halves, so that every edge is the double the statement would have produced.
 * Null when the range is empty or not finite (the statement then has no edges either).
 */
export function pooledBinEdges(lo: number, hi: number, bins: number): number[] | null {
  if (!(lo > Number.NEGATIVE_INFINITY && hi < Number.POSITIVE_INFINITY) || lo > hi) return null;
  const from = lo < hi ? lo : lo - 0.5 < lo ? lo - 0.5 : lo - Math.abs(lo) * 1e-9;
  const to = lo < hi ? hi : hi + 0.5 > hi ? hi + 0.5 : hi + Math.abs(hi) * 1e-9;
  const step = (to / 2 - from / 2) / bins;
  const edges = new Array<number>(bins + 1);
  for (let i = 0; i < bins; i++) edges[i] = 2 * (i * step + from / 2);
  edges[bins] = to;
  return edges;
}
