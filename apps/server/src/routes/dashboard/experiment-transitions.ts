import type { FastifyRequest } from 'fastify';
import type { Context } from '../../context.ts';
import { ExperimentSchema } from '../../domain/experiments/experiment-schema.ts';
import type { Transition } from '../../domain/experiments/lifecycle/states.ts';
import { type StopRequest, transition } from '../../domain/experiments/lifecycle/transitions.ts';
import type { Experiment } from '../../domain/experiments/service.ts';
import type { App } from '../../http/app-types.ts';
import { problemResponses } from '../../http/responses.ts';
import { callerOf, requireRole } from '../../http/session-auth.ts';
import { ExperimentParams } from './get-experiment.ts';

/** The transitions that take no body; `stop` (stop-experiment.ts) carries a conclusion. */
const BODILESS = {
  start:
    'Start a draft: draft → running; clients assign by bucket from their next poll (admin or owner)',
  archive:
    'Archive a draft or stopped experiment: it leaves the config and the default list; results stay readable (admin or owner)',
  unarchive:
    'Unarchive: back to the status it was archived from, draft or stopped (admin or owner)',
} as const;

type LifecycleDeps = Pick<Context, 'clock' | 'db' | 'orgState'>;

/** A lifecycle route's work: the caller moves the experiment, then the org's cached config goes. */
export async function moveExperiment(
  ctx: LifecycleDeps,
  request: FastifyRequest,
  idOrName: string,
  move: Transition,
  stop?: StopRequest,
): Promise<Experiment> {
  const caller = callerOf(request);
  const experiment = await transition(ctx.db, caller, idOrName, move, ctx.clock.now(), stop);
  ctx.orgState.invalidate(caller.orgId);
  return experiment;
}

export function register(app: App, ctx: LifecycleDeps): void {
  for (const [name, summary] of Object.entries(BODILESS)) {
    app.post(
      `/v1/experiments/:id/${name}`,
      {
        preHandler: requireRole('admin'),
        schema: {
          tags: ['experiments'],
          summary,
          params: ExperimentParams,
          response: { 200: ExperimentSchema, ...problemResponses(401, 403, 404, 409) },
        },
      },
      async (request) =>
        moveExperiment(ctx, request, request.params.id, name as keyof typeof BODILESS),
    );
  }
}
