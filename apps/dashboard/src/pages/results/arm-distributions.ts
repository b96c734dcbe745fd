import type { Distribution, MetricResult } from '../../api/client.ts';

/**
 * Each (metric, treatment) result carries control and that treatment over shared bin edges.
 * When every treatment of the metric used the same edges, one chart shows all arms; otherwise
 * one chart per treatment, never counts forced onto edges they were not counted on.
 */
export function armDistributions(
  rows: MetricResult[],
): Array<{ title: string; dist: Distribution }> {
  const first = rows[0];
  if (!first) return [];
  // Control first, then the treatments in the order of the rows.
  const armsInOrder = (r: MetricResult): Distribution => ({
    bin_edges: r.distribution.bin_edges,
    counts: Object.fromEntries(
      [r.control, r.treatment].map((a) => [a, r.distribution.counts[a] ?? []]),
    ),
  });
  const edges = JSON.stringify(first.distribution.bin_edges);
  if (rows.every((r) => JSON.stringify(r.distribution.bin_edges) === edges)) {
    const counts: Record<string, number[]> = {};
    for (const r of rows) Object.assign(counts, armsInOrder(r).counts);
    return [{ title: first.metric, dist: { bin_edges: first.distribution.bin_edges, counts } }];
  }
  return rows.map((r) => ({
    title: `${r.metric} (${r.treatment} vs ${r.control})`,
    dist: armsInOrder(r),
  }));
}
