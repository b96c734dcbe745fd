import { Type } from 'typebox';
import type { Context } from '../../context.ts';
import { usageOfOrg } from '../../domain/billing/usage.ts';
import type { App } from '../../http/app-types.ts';
import { problemResponses } from '../../http/responses.ts';
import { callerOf } from '../../http/session-auth.ts';

const Meter = Type.Object({ used: Type.Integer(), included: Type.Integer() });

/** This UTC month's usage of one org (also on the platform owner's org views). */
export const UsageSchema = Type.Object({
  plan: Type.String(),
  month: Type.String({ description: 'YYYY-MM, UTC' }),
  events: Meter,
  judge_evaluations: Meter,
  overage_billed: Type.Boolean(),
  resets_at: Type.String({ format: 'date-time' }),
  enforced: Type.Boolean({ description: 'Plan limits are applied in this environment' }),
});

/** The org's own view adds the month's calls no price row priced, per model. */
const OrgUsageSchema = Type.Object({
  ...UsageSchema.properties,
  unpriced_calls: Type.Array(
    Type.Object({
      model: Type.String({ description: 'The model name as the calls sent it' }),
      calls: Type.Integer({ minimum: 1 }),
    }),
    {
      description:
        'Model calls this month (by timestamp) with tokens but no cost, because no price row matched their model: add a row with PUT /v1/model-prices. The 100 most called models.',
    },
  ),
});

export function register(app: App, ctx: Pick<Context, 'clock' | 'config' | 'db' | 'shards'>): void {
  app.get(
    '/v1/usage',
    {
      schema: {
        tags: ['billing'],
        summary:
          'Events and judge evaluations used this UTC calendar month against the included allowance',
        response: {
          200: OrgUsageSchema,
          ...problemResponses(401, 403),
        },
      },
    },
    async (request) =>
      usageOfOrg(
        ctx.db,
        ctx.shards,
        callerOf(request).orgId,
        ctx.clock.now(),
        ctx.config.enforceLimits,
      ),
  );
}
