import type { Context } from '../../context.ts';
import { HoldoutInputSchema, HoldoutSchema } from '../../domain/holdouts/holdout-schema.ts';
import { createHoldout } from '../../domain/holdouts/service.ts';
import type { App } from '../../http/app-types.ts';
import { changeOrgConfig, created } from '../../http/org-routes.ts';
import { problemResponses } from '../../http/responses.ts';

export function register(app: App, ctx: Pick<Context, 'clock' | 'db' | 'orgState'>): void {
  app.post(
    '/v1/holdouts',
    {
      schema: {
        tags: ['holdouts'],
        summary:
          'Create a holdout: a share of users kept out of a set of experiments, compared nightly with everyone else',
        body: HoldoutInputSchema,
        response: { 201: HoldoutSchema, ...problemResponses(400, 401, 403, 415) },
      },
    },
    async (request, reply) =>
      created(
        reply,
        '/v1/holdouts',
        await changeOrgConfig(ctx, request, (caller) =>
          createHoldout(ctx.db, caller, request.body, ctx.clock.now()),
        ),
      ),
  );
}
