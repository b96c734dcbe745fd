import { Type } from 'typebox';
import { readSummary } from '../../analysis/results/results.ts';
import { SummaryEntrySchema } from '../../analysis/results/results-schema.ts';
import type { Context } from '../../context.ts';
import type { App } from '../../http/app-types.ts';
import { problemResponses } from '../../http/responses.ts';
import { callerOf } from '../../http/session-auth.ts';

export function register(app: App, ctx: Pick<Context, 'db'>): void {
  app.get(
    '/v1/results/summary',
    {
      schema: {
        tags: ['results'],
        summary:
          'One entry per experiment that has computed results, each in the shape of the results response plus its guardrail violation count',
        response: { 200: Type.Array(SummaryEntrySchema), ...problemResponses(401, 403) },
      },
    },
    async (request) => readSummary(ctx.db, callerOf(request).orgId),
  );
}
