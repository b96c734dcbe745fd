import { Type } from 'typebox';
import type { Context } from '../../context.ts';
import { setPlanOverride } from '../../domain/plans/plan-override.ts';
import type { App } from '../../http/app-types.ts';
import { problemResponses } from '../../http/responses.ts';
import { UUID } from '../../schemas/uuid.ts';
import { PlanName, PlanSourceName } from '../dashboard/schemas.ts';

export function register(app: App, ctx: Pick<Context, 'clock' | 'db' | 'orgState'>): void {
  app.put(
    '/v1/admin/orgs/:id/plan-override',
    {
      schema: {
        tags: ['admin'],
        summary:
          "Pin an org's plan (wins over billing; no billing webhook revokes it), or clear the pin with null",
        params: Type.Object({
          id: Type.String({ pattern: UUID.source, description: 'internal org id' }),
        }),
        body: Type.Object(
          { plan: Type.Union([PlanName, Type.Null()]) },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({
            org_id: Type.String({ format: 'uuid' }),
            plan: PlanName,
            plan_source: PlanSourceName,
            override: Type.Union([PlanName, Type.Null()]),
          }),
          ...problemResponses(400, 401, 403, 404),
        },
      },
    },
    async (request) => {
      const orgId = request.params.id;
      const effective = await setPlanOverride(
        ctx.db,
        orgId,
        request.body.plan,
        { userId: null, email: request.platformOwnerEmail },
        ctx.clock.now(),
      );
      ctx.orgState.invalidate(orgId);
      return {
        org_id: orgId,
        plan: effective.plan,
        plan_source: effective.source,
        override: effective.override,
      };
    },
  );
}
