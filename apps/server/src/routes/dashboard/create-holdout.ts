import type { Context } from '../../context.ts';
import { HoldoutInputSchema, HoldoutSchema } from '../../domain/holdouts/holdout-schema.ts';
import { createHoldout } from '../../domain/holdouts/service.ts';
import type { App } from '../../http/app-types.ts';
import { problemResponses } from '../../http/responses.ts';
import { callerOf } from '../../http/session-auth.ts';

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
    async (request, reply) => {
      const caller = callerOf(request);
      const holdout = await createHoldout(ctx.db, caller, request.body, ctx.clock.now());
      ctx.orgState.invalidate(caller.orgId);
      reply.status(201).header('location', `/v1/holdouts/${holdout.id}`);
      return holdout;
    },
  );
}
