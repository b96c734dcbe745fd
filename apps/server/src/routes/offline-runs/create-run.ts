import type { Context } from '../../context.ts';
import { RunInputSchema, RunSchema } from '../../domain/offline-runs/run-schema.ts';
import { createRun } from '../../domain/offline-runs/service.ts';
import type { App } from '../../http/app-types.ts';
import { created } from '../../http/created.ts';
import { problemResponses } from '../../http/responses.ts';
import { orgCallerOf } from '../../http/session-or-key-auth.ts';
import { AUTH_NOTE, ExperimentParams, NOT_RATE_LIMITED, SESSION_OR_SECRET_KEY } from './schemas.ts';

export function register(app: App, ctx: Pick<Context, 'clock' | 'db' | 'judge'>): void {
  app.post(
    '/v1/experiments/:id/offline-runs',
    {
      config: NOT_RATE_LIMITED,
      schema: {
        tags: ['offline-runs'],
        summary: 'Start an offline run: a dataset version through variants, with scorers',
        description: `Pins the experiment's current version and the dataset version (the latest when \`dataset_version\` is absent). \`variants\` defaults to every variant of the current version; the baseline is the variant of the first allocation slice and is listed first. \`expected_results\` = items × variants × repeats. The run takes results while \`running\`. A \`judge\` scorer needs the pro plan or higher (on free the run is refused with \`plan-required\`) and a judge endpoint on the server. ${AUTH_NOTE}`,
        security: SESSION_OR_SECRET_KEY,
        params: ExperimentParams,
        body: RunInputSchema,
        response: { 201: RunSchema, ...problemResponses(400, 401, 403, 404, 413, 415) },
      },
    },
    async (request, reply) => {
      const run = await createRun(
        ctx.db,
        orgCallerOf(request),
        request.params.id,
        request.body,
        ctx.clock.now(),
        { judgeConfigured: ctx.judge !== null },
      );
      return created(reply, `/v1/offline-runs/${run.id}`, run);
    },
  );
}
