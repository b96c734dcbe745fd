import { Type } from 'typebox';
import type { Context } from '../../context.ts';
import { PLANS } from '../../domain/plans/plans.ts';
import { platformOverview } from '../../domain/platform-overview.ts';
import type { App } from '../../http/app-types.ts';
import { problemResponses } from '../../http/responses.ts';

const AdminOverviewSchema = Type.Object({
  orgs: Type.Integer(),
  users: Type.Integer(),
  experiments: Type.Integer(),
  month: Type.String({ description: 'YYYY-MM, UTC' }),
  events_this_month: Type.Integer({ description: 'Metered events, all orgs, this UTC month' }),
  events_per_day: Type.Array(
    Type.Object({ day: Type.String({ format: 'date' }), events: Type.Integer() }),
    {
      description:
        'The last 30 UTC days, oldest first: folded events by the day they occurred (exposures, model calls, business events)',
    },
  ),
  plans: Type.Object(
    Object.fromEntries(PLANS.map((plan) => [plan, Type.Integer()])) as Record<
      (typeof PLANS)[number],
      ReturnType<typeof Type.Integer>
    >,
    { description: 'Orgs on each plan' },
  ),
});

export function register(app: App, ctx: Pick<Context, 'clock' | 'db' | 'shards'>): void {
  app.get(
    '/v1/admin/overview',
    {
      schema: {
        tags: ['admin'],
        summary: 'Platform-wide totals and traffic',
        response: { 200: AdminOverviewSchema, ...problemResponses(401, 403) },
      },
    },
    async () => platformOverview(ctx.db, ctx.shards, ctx.clock.now()),
  );
}
