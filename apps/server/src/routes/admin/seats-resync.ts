import { Type } from 'typebox';
import type { Context } from '../../context.ts';
import { PLANS } from '../../domain/plans/plans.ts';
import { resyncSeatCaps } from '../../domain/plans/seat-caps.ts';
import type { App } from '../../http/app-types.ts';
import { problemResponses } from '../../http/responses.ts';

const SeatCap = Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], {
  description: 'Most members allowed; null = unlimited',
});

export function register(app: App, ctx: Pick<Context, 'clock' | 'db' | 'identityDirectory'>): void {
  app.post(
    '/v1/admin/seats/resync',
    {
      schema: {
        tags: ['admin'],
        summary:
          "Push every org's seat cap (free 5, pro 100, business unlimited) to the identity provider; idempotent",
        response: {
          200: Type.Object({
            changed: Type.Array(
              Type.Object({
                org_id: Type.Union([Type.String({ format: 'uuid' }), Type.Null()], {
                  description: 'null: an org the identity provider has and Arbiter has not seen',
                }),
                external_id: Type.String(),
                plan: Type.Enum([...PLANS]),
                from: SeatCap,
                to: SeatCap,
              }),
              { description: 'Orgs whose cap at the provider differed, now set' },
            ),
            unchanged: Type.Integer({ description: 'Orgs whose cap was already right' }),
          }),
          ...problemResponses(401, 403, 409, 502),
        },
      },
    },
    async () => resyncSeatCaps(ctx.db, ctx.identityDirectory, ctx.clock.now()),
  );
}
