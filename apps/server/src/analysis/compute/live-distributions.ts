import type { Histogram } from '@arbiter/stats';
import type { Context } from '../../context.ts';
import type { Experiment } from '../../domain/experiments/service.ts';
import { utcDay } from '../../kernel/utc-day.ts';
import { eventReads } from '../reads/event-reads.ts';

/**
 * Per metric, the in-flight per-arm histogram of users' values since the experiment began,
 * over edges shared by every arm: the same values the analysis tests, without any test.
 * Judge metrics appear once scored by a run. Read where the event data is: on shards, every
 * shard's values binned over the pooled edges, as a run bins them.
 */
export async function liveDistributions(
  ctx: Pick<Context, 'shards' | 'clock'>,
  orgId: string,
  experiment: Experiment,
) {
  const window = {
    from: utcDay(new Date(experiment.created_at)),
    to: utcDay(ctx.clock.now()),
  };
  // No covariate: the live view shows values, not adjusted tests.
  const metrics = experiment.metrics
    .filter((m) => m.kind !== 'judge')
    .map((m) => ({ ...m, cuped: undefined }));
  const stats = await eventReads(ctx.shards, { experimentId: experiment.id, orgId, window }).stats(
    metrics,
    [{ key: 'all', variants: 'all' }],
  );
  const out: Record<string, Histogram> = {};
  for (const m of metrics) out[m.name] = stats.metrics[m.name]?.histograms.all ?? emptyLive();
  return out;
}

function emptyLive(): Histogram {
  return { bin_edges: [], counts: {} };
}
