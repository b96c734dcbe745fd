import { histogram } from '@arbiter/stats';
import type { Context } from '../context.ts';
import type { Experiment } from '../domain/experiments/service.ts';
import { metricValues, readUserStats } from './user-values.ts';

/**
 * Per metric, the in-flight per-arm histogram of users' values since the experiment began:
 * the same values the analysis tests, without any test. Judge metrics appear once scored by
 * a run.
 */
export async function liveDistributions(ctx: Context, experiment: Experiment) {
  const window = {
    from: experiment.created_at.slice(0, 10),
    to: ctx.clock.now().toISOString().slice(0, 10),
  };
  const stats = await readUserStats(ctx.db, experiment.id, window);
  const out: Record<string, ReturnType<typeof histogram>> = {};
  for (const metric of experiment.metrics) {
    if (metric.kind === 'judge') continue;
    const values = await metricValues(ctx.db, experiment.id, metric, window, stats);
    out[metric.name] = histogram(Object.fromEntries(values));
  }
  return out;
}
