import type { Context } from '../../context.ts';
import { HoldoutInputSchema, HoldoutSchema } from '../../domain/holdouts/holdout-schema.ts';
import { createHoldout } from '../../domain/holdouts/service.ts';
import type { App } from '../../http/app-types.ts';
import { registerOrgCreate } from '../../http/org-routes.ts';

export function register(app: App, ctx: Pick<Context, 'clock' | 'db' | 'orgState'>): void {
  registerOrgCreate(app, ctx, {
    url: '/v1/holdouts',
    tags: ['holdouts'],
    summary:
      'Create a holdout: a share of users kept out of a set of experiments, compared nightly with everyone else',
    body: HoldoutInputSchema,
    item: HoldoutSchema,
    problems: [400, 401, 403, 415],
    create: (caller, body) => createHoldout(ctx.db, caller, body, ctx.clock.now()),
  });
}
