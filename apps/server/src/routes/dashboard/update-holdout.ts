import type { Context } from '../../context.ts';
import { HoldoutChangeSchema, HoldoutSchema } from '../../domain/holdouts/holdout-schema.ts';
import { updateHoldout } from '../../domain/holdouts/service.ts';
import type { App } from '../../http/app-types.ts';
import { changeOrgConfig } from '../../http/org-routes.ts';
import { problemResponses } from '../../http/responses.ts';
import { HoldoutParams } from './get-holdout.ts';

export function register(app: App, ctx: Pick<Context, 'clock' | 'db' | 'orgState'>): void {
  app.put(
    '/v1/holdouts/:id',
    {
      schema: {
        tags: ['holdouts'],
        summary:
          'Change a holdout’s percent (growing only), experiments, metrics or description; a new version',
        params: HoldoutParams,
        body: HoldoutChangeSchema,
        response: { 200: HoldoutSchema, ...problemResponses(400, 401, 403, 404, 415) },
      },
    },
    async (request) =>
      changeOrgConfig(ctx, request, (caller) =>
        updateHoldout(ctx.db, caller, request.params.id, request.body, ctx.clock.now()),
      ),
  );
}
