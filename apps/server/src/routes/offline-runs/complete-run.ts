import type { Context } from '../../context.ts';
import { RunSchema } from '../../domain/offline-runs/run-schema.ts';
import type { App } from '../../http/app-types.ts';
import { problemResponses } from '../../http/responses.ts';
import { orgCallerOf } from '../../http/session-or-key-auth.ts';
import { AUTH_NOTE, NOT_RATE_LIMITED, RunParams, SESSION_OR_SECRET_KEY } from './schemas.ts';

export function register(app: App, ctx: Pick<Context, 'offlineScoring'>): void {
  app.post(
    '/v1/offline-runs/:run_id/complete',
    {
      config: NOT_RATE_LIMITED,
      schema: {
        tags: ['offline-runs'],
        summary: 'Score what arrived and compute the statistics',
        description: `The run goes to \`scoring\`, then \`complete\` (or \`failed\` with \`failure_reason\`). The built-in scorers run at once, so without a judge scorer the answer is the finished run (unless scoring takes more than 20 s: then the run in \`scoring\`, finished in the background); with one, the answer is the run in \`scoring\` and the judge's queue completes it in the background (read it with GET until its status changes). A run with missing results still completes: \`coverage\` says what is missing. A run already past \`running\` is answered as it is, unchanged, except one left in \`scoring\` by a process that stopped: past its lease (5 minutes) it is taken over and scoring resumes. ${AUTH_NOTE}`,
        security: SESSION_OR_SECRET_KEY,
        params: RunParams,
        response: { 200: RunSchema, ...problemResponses(401, 403, 404) },
      },
    },
    async (request) =>
      ctx.offlineScoring.complete(orgCallerOf(request).orgId, request.params.run_id),
  );
}
