import { Type } from 'typebox';
import { LastRunSchema, readLastRuns } from '../../analysis/results/last-runs.ts';
import type { Context } from '../../context.ts';
import { ExperimentSchema } from '../../domain/experiments/experiment-schema.ts';
import { listExperiments } from '../../domain/experiments/service.ts';
import type { App } from '../../http/app-types.ts';
import { problemResponses } from '../../http/responses.ts';
import { callerOf } from '../../http/session-auth.ts';

/** An experiment of the list, with when the pipeline last looked at it. */
const ListedExperimentSchema = Type.Object({
  ...ExperimentSchema.properties,
  last_run: Type.Union([LastRunSchema, Type.Null()]),
});

export function register(app: App, ctx: Pick<Context, 'db'>): void {
  app.get(
    '/v1/experiments',
    {
      schema: {
        tags: ['experiments'],
        summary:
          "List the org's experiments, latest version each, with each one's latest analysis run of any status",
        response: { 200: Type.Array(ListedExperimentSchema), ...problemResponses(401, 403) },
      },
    },
    async (request) => {
      const orgId = callerOf(request).orgId;
      const [list, lastRuns] = await Promise.all([
        listExperiments(ctx.db, orgId),
        readLastRuns(ctx.db, orgId),
      ]);
      return list.map((e) => ({ ...e, last_run: lastRuns.get(e.id) ?? null }));
    },
  );
}
