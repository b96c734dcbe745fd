import type { Context } from '../../context.ts';
import type { RunKind, RunOutcome } from '../../kernel/ports.ts';

export type RunMetricsDeps = Pick<Context, 'clock' | 'metrics'>;

/**
 * Runs `work` (one analysis run) and counts it with its duration on the clock: the outcome
 * `outcomeOf` gives, or `failed` when it throws (and the error goes on).
 */
export async function measuredRun<T>(
  deps: RunMetricsDeps,
  kind: RunKind,
  work: () => Promise<T>,
  outcomeOf: (result: T) => RunOutcome = () => 'succeeded',
): Promise<T> {
  const startedAt = deps.clock.now().getTime();
  const seconds = () => (deps.clock.now().getTime() - startedAt) / 1000;
  let result: T;
  try {
    result = await work();
  } catch (error) {
    deps.metrics.observeRun(kind, 'failed', seconds());
    throw error;
  }
  deps.metrics.observeRun(kind, outcomeOf(result), seconds());
  return result;
}
