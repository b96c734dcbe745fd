import { Type } from 'typebox';
import type { Context } from '../../context.ts';
import { billingSummary } from '../../domain/billing/summary.ts';
import type { App } from '../../http/app-types.ts';
import { problemResponses } from '../../http/responses.ts';
import { callerOf } from '../../http/session-auth.ts';
import { PlanName, PlanSourceName } from './schemas.ts';

const Nullable = <T extends ReturnType<typeof Type.String>>(t: T) => Type.Union([t, Type.Null()]);

export const BillingSummarySchema = Type.Object({
  plan: PlanName,
  plan_source: PlanSourceName,
  override: Type.Union([PlanName, Type.Null()]),
  has_billing_account: Type.Boolean(),
  billing_configured: Type.Boolean(),
  subscription_status: Nullable(
    Type.String({ description: "The billing provider's status, e.g. active, trialing, canceled" }),
  ),
  current_period_end: Nullable(
    Type.String({
      format: 'date-time',
      description: 'End of the paid period; a downgrade takes effect then',
    }),
  ),
  cancel_at_period_end: Type.Boolean(),
});

export function register(app: App, ctx: Pick<Context, 'billing' | 'clock' | 'db'>): void {
  app.get(
    '/v1/billing/summary',
    {
      schema: {
        tags: ['billing'],
        summary: "The org's plan, its billing account and subscription state",
        response: { 200: BillingSummarySchema, ...problemResponses(401, 403) },
      },
    },
    async (request) =>
      billingSummary(ctx.db, callerOf(request).orgId, ctx.clock.now(), ctx.billing !== null),
  );
}
