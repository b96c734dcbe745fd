import { describe, expect, it } from 'vitest';
import type { MetricResult } from '../../src/api/client.ts';
import { armDistributions } from '../../src/pages/results/arm-distributions.ts';

const row = (treatment: string, edges: number[], counts: Record<string, number[]>) =>
  ({
    metric: 'latency',
    control: 'control',
    treatment,
    distribution: { bin_edges: edges, counts },
  }) as unknown as MetricResult;

describe('the per-arm distributions', () => {
  it('are none without rows', () => {
    expect(armDistributions([])).toEqual([]);
  });

  it('share one chart, control first, when every treatment was counted on the same edges', () => {
    const charts = armDistributions([
      row('b', [0, 1, 2], { b: [3, 4], control: [1, 2] }),
      row('c', [0, 1, 2], { control: [1, 2], c: [5, 6] }),
    ]);
    expect(charts).toEqual([
      {
        title: 'latency',
        dist: { bin_edges: [0, 1, 2], counts: { control: [1, 2], b: [3, 4], c: [5, 6] } },
      },
    ]);
    expect(Object.keys(charts[0]?.dist.counts ?? {})).toEqual(['control', 'b', 'c']);
  });

  it('get a chart per treatment when the edges differ, never counts moved onto other edges', () => {
    const charts = armDistributions([
      row('b', [0, 1, 2], { control: [1, 2], b: [3, 4] }),
      row('c', [0, 5, 10], { control: [7, 8], c: [5] }),
    ]);
    expect(charts).toEqual([
      {
        title: 'latency (b vs control)',
        dist: { bin_edges: [0, 1, 2], counts: { control: [1, 2], b: [3, 4] } },
      },
      {
        title: 'latency (c vs control)',
        dist: { bin_edges: [0, 5, 10], counts: { control: [7, 8], c: [5] } },
      },
    ]);
  });

  it('shows an arm without counts as empty rather than leaving it out', () => {
    const [chart] = armDistributions([row('b', [0, 1], { control: [9] })]);
    expect(chart?.dist.counts).toEqual({ control: [9], b: [] });
  });
});
