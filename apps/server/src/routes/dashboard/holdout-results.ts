import { Type } from 'typebox';
import { readResults } from '../../analysis/results/results.ts';
import { ResultsSchema } from '../../analysis/results/results-schema.ts';
import type { Context } from '../../context.ts';
import { holdoutAsExperiment } from '../../domain/holdouts/service.ts';
import type { App } from '../../http/app-types.ts';
import { resultsOrProblem } from '../../http/collecting-problem.ts';
import { problemResponses } from '../../http/responses.ts';
import { callerOf } from '../../http/session-auth.ts';
import { RunLabelParam } from '../../schemas/run-label.ts';
import { HoldoutParams } from './get-holdout.ts';

export function register(app: App, ctx: Pick<Context, 'clock' | 'config' | 'db' | 'shards'>): void {
  app.get(
    '/v1/holdouts/:id/results',
    {
      schema: {
        tags: ['holdouts'],
        summary:
          'Held-out users against everyone else (`general`, the treatment) on the holdout’s metrics: the same statistics, SRM gate and BH as an experiment’s results; 404 while collecting',
        params: HoldoutParams,
        querystring: Type.Object(
          {
            day: Type.Optional(RunLabelParam('A day YYYY-MM-DD or a label manual-<ISO instant>')),
          },
          { additionalProperties: false },
        ),
        response: { 200: ResultsSchema, ...problemResponses(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const orgId = callerOf(request).orgId;
      const holdout = await holdoutAsExperiment(ctx.db, orgId, request.params.id);
      return resultsOrProblem(
        await readResults(ctx, holdout, request.query.day, {
          orgId,
          minEventsPerArm: ctx.config.minEventsPerArm,
          now: ctx.clock.now(),
        }),
        // The backing row is named `holdout:<name>`; the answer names the holdout as created.
        { kind: 'holdout', name: holdout.name.replace(/^holdout:/, '') },
      );
    },
  );
}
