import type { ShardSet } from '../../db/shards/shard-set.ts';
import type { Experiment } from '../../domain/experiments/service.ts';
import { eventReads } from '../reads/event-reads.ts';
import { analysisWindow } from '../reads/read-run-inputs.ts';
import { type SampleSize, sampleSize } from '../reads/sample-size.ts';

/** One primary metric's estimate for one treatment while the experiment collects. */
export interface CollectingEstimate extends SampleSize {
  metric: string;
  treatment: string;
  /** Users with a value of the metric so far, per arm of the pair. */
  n_per_arm: Record<string, number>;
}

/**
 * The time-to-decision estimate of every (primary metric, treatment) pair over the window a
 * run started now would read (docs/decisions/analysis.md#time-to-a-decision): one aggregate statement
 * of the primary metrics' sufficient statistics, without CUPED's covariates or histograms,
 * and the arms' recent arrivals. Both are read where the event data is: on every shard and
 * merged as a run merges them, so shards answer what one database holding the rows answers.
 */
export async function collectingEstimates(
  shards: ShardSet,
  orgId: string,
  experiment: Experiment,
  now: Date,
): Promise<CollectingEstimate[]> {
  const primary = experiment.metrics
    .filter((m) => m.category === 'primary')
    .map(({ cuped: _, ...m }) => m);
  const arms = experiment.allocation
    .map((slice) => slice.variant)
    .filter((v) => experiment.bucket_ranges.some((r) => r.variant === v));
  const control = arms[0];
  if (primary.length === 0 || control === undefined || arms.length < 2) return [];
  const { window, windowDays } = analysisWindow(new Date(experiment.created_at), now);
  const reads = eventReads(shards, { experimentId: experiment.id, orgId, window });
  const stats = await reads.stats(primary, []);
  const arrivals = await reads.arrivals({ window, windowDays, windowEnd: now });
  return primary.flatMap((m) =>
    arms.slice(1).map((treatment) => {
      const summaries = stats.metrics[m.name]?.arms ?? {};
      return {
        metric: m.name,
        treatment,
        n_per_arm: {
          [control]: summaries[control]?.n ?? 0,
          [treatment]: summaries[treatment]?.n ?? 0,
        },
        ...sampleSize(m, summaries, stats.arms, { control, treatment }, arrivals),
      };
    }),
  );
}
