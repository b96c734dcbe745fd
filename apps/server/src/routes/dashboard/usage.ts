import { Type } from 'typebox';
import type { Context } from '../../context.ts';
import { usageSummary } from '../../domain/billing/usage.ts';
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

export function register(app: App, ctx: Pick<Context, 'clock' | 'config' | 'db'>): void {
  app.get(
    '/v1/usage',
    {
      schema: {
        tags: ['billing'],
        summary:
          'Events and judge evaluations used this UTC calendar month against the included allowance',
        response: {
          200: UsageSchema,
          ...problemResponses(401, 403),
        },
      },
    },
    async (request) =>
      usageSummary(ctx.db, callerOf(request).orgId, ctx.clock.now(), ctx.config.enforceLimits),
  );
}
