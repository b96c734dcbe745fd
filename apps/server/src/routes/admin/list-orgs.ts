import { Type } from 'typebox';
import type { Context } from '../../context.ts';
import { listOrgSummaries } from '../../domain/org-summaries.ts';
import type { App } from '../../http/app-types.ts';
import { problemResponses } from '../../http/responses.ts';
import { OrgSummarySchema } from './schemas.ts';

export function register(app: App, ctx: Pick<Context, 'clock' | 'config' | 'db'>): void {
  app.get(
    '/v1/admin/orgs',
    {
      schema: {
        tags: ['admin'],
        summary: 'Every org with its plan and this month’s usage, oldest first',
        response: { 200: Type.Array(OrgSummarySchema), ...problemResponses(401, 403) },
      },
    },
    async () => listOrgSummaries(ctx.db, ctx.clock.now(), ctx.config.enforceLimits),
  );
}
