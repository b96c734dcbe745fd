import type { ShardSet } from '../../db/shards/shard-set.ts';
import type { Experiment } from '../../domain/experiments/service.ts';
import { DomainError } from '../../domain/outcomes.ts';
import type { MetricDefinition } from '../../schemas/experiment-config.ts';
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
  const primary = experiment.metrics.filter((m) => m.category === 'primary');
  return metricEstimates(shards, orgId, experiment, primary, now);
}

/**
 * The same estimate for the metrics given (any category, each at its own `mde`): what the
 * sample-size route answers for one metric and the MDE the caller names.
 */
export async function metricEstimates(
  shards: ShardSet,
  orgId: string,
  experiment: Experiment,
  metrics: readonly MetricDefinition[],
  now: Date,
): Promise<CollectingEstimate[]> {
  const asked = metrics.map(({ cuped: _, ...m }) => m);
  const arms = experiment.allocation
    .map((slice) => slice.variant)
    .filter((v) => experiment.bucket_ranges.some((r) => r.variant === v));
  const control = arms[0];
  if (asked.length === 0 || control === undefined || arms.length < 2) return [];
  const { window, windowDays } = analysisWindow(new Date(experiment.created_at), now);
  const reads = eventReads(shards, { experimentId: experiment.id, orgId, window });
  const stats = await reads.stats(asked, []);
  const arrivals = await reads.arrivals({ window, windowDays, windowEnd: now });
  return asked.flatMap((m) =>
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

/**
 * The estimate for one metric of the experiment by name, at `mde` when given (else the
 * metric's own): what the sample-size route answers. A name the config lacks is refused.
 */
export async function sizeForMetric(
  shards: ShardSet,
  orgId: string,
  experiment: Experiment,
  name: string,
  mde: number | undefined,
  now: Date,
): Promise<CollectingEstimate[]> {
  const metric = experiment.metrics.find((m) => m.name === name);
  if (metric === undefined) {
    const names = experiment.metrics.map((m) => m.name);
    throw new DomainError(
      'metric-not-found',
      `Experiment ${experiment.name} has no metric ${name}; its metrics: ${names.join(', ') || 'none'}`,
      { metrics: names },
    );
  }
  const sized = mde === undefined ? metric : { ...metric, mde };
  return metricEstimates(shards, orgId, experiment, [sized], now);
}
