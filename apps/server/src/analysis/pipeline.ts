import type { Context } from '../context.ts';
import { computeRun } from './compute-run.ts';
import { type RunRequest, readRunInputs } from './read-run-inputs.ts';
import { storeRun } from './run-store.ts';

export type { RunRequest } from './read-run-inputs.ts';

/**
 * One analysis run of one experiment, nightly and manual alike, in three parts: read (every
 * query), compute (pure: threshold, SRM gate, tests, CUPED, BH) and store, which returns the
 * run as the results route presents it. The caller has passed the fold gate (`awaitFold`)
 * first and gives the position it saw.
 */
export async function analyzeExperiment(ctx: Context, request: RunRequest) {
  const { orgId, inputs } = await readRunInputs(ctx, request);
  return storeRun(ctx, orgId, request.experimentId, computeRun(inputs), request.foldedThrough);
}
