import type { Context } from '../../context.ts';
import type { LoadedExperiment } from '../../domain/experiments/service.ts';
import { inSpan } from '../../kernel/tracing.ts';
import { readBreakdowns } from '../compute/breakdowns.ts';
import { computeRun } from '../compute/compute-run.ts';
import { type RunRequest, readRunInputs, valueScope } from '../reads/read-run-inputs.ts';
import { storeRun } from '../results/run-store.ts';

export type { RunRequest } from '../reads/read-run-inputs.ts';

/** What a run reads and stores with: the database, the time it is stored at, the settings. */
export type RunDeps = Pick<Context, 'db' | 'clock' | 'config' | 'shards'>;

/**
 * One analysis run of one experiment, nightly and manual alike, in three parts: read (every
 * query), compute (pure: threshold, SRM gate, tests, CUPED, BH) and store, which returns the
 * run as the results route presents it. The caller has loaded the experiment with its
 * current version (the route for its org, the nightly run for every one) and passed the fold
 * gate (`awaitFold`), whose position the request carries. It is one span, `arbiter.analysis`,
 * with its statements as children.
 */
export async function analyzeExperiment(
  ctx: RunDeps,
  found: LoadedExperiment,
  request: RunRequest,
) {
  const attributes = { 'arbiter.run.kind': request.kind, 'arbiter.experiment.id': found.row.id };
  return inSpan('arbiter.analysis', attributes, async (span) => {
    const inputs = await readRunInputs(ctx, found, request);
    const run = computeRun(inputs);
    // Slices after the run is decided, and only from its inputs: they cannot change it.
    const slices =
      run.status === 'computed' && request.dimensions?.length
        ? await readBreakdowns(
            ctx.shards,
            valueScope(found, request.windowEnd),
            inputs,
            request.dimensions,
          )
        : {};
    const stored = await storeRun(
      ctx,
      found.row.orgId,
      found.row.id,
      run,
      request.foldedThrough,
      slices,
      request.final ?? false,
    );
    span.setAttribute('arbiter.run.status', stored.status);
    // A manual run asked for one breakdown answers with it when it computed one.
    const [asked] = request.kind === 'manual' ? (request.dimensions ?? []) : [];
    if (asked === undefined || slices[asked] === undefined) return stored;
    return {
      ...stored,
      breakdown: { dimension: asked, exploratory: true as const, slices: slices[asked] },
    };
  });
}
