import { readSummary } from '../../analysis/results/results.ts';
import { SummaryEntrySchema } from '../../analysis/results/results-schema.ts';
import type { Context } from '../../context.ts';
import type { App } from '../../http/app-types.ts';
import { registerOrgList } from '../../http/org-routes.ts';

export function register(app: App, ctx: Pick<Context, 'db'>): void {
  registerOrgList(app, ctx.db, {
    url: '/v1/results/summary',
    tags: ['results'],
    summary:
      'One entry per experiment that has computed results, each in the shape of the results response plus its guardrail violation count',
    item: SummaryEntrySchema,
    list: readSummary,
  });
}
