import { Type } from 'typebox';
import type { Context } from '../../context.ts';
import { DatasetSchema } from '../../domain/datasets/dataset-schema.ts';
import { listDatasets } from '../../domain/datasets/service.ts';
import type { App } from '../../http/app-types.ts';
import { problemResponses } from '../../http/responses.ts';
import { orgCallerOf } from '../../http/session-or-key-auth.ts';
import { AUTH_NOTE, NOT_RATE_LIMITED, SESSION_OR_SECRET_KEY } from './schemas.ts';

export function register(app: App, ctx: Pick<Context, 'db'>): void {
  app.get(
    '/v1/datasets',
    {
      config: NOT_RATE_LIMITED,
      schema: {
        tags: ['datasets'],
        summary: "List the org's datasets by name, each at its latest version with its item_count",
        description: AUTH_NOTE,
        security: SESSION_OR_SECRET_KEY,
        response: { 200: Type.Array(DatasetSchema), ...problemResponses(401, 403) },
      },
    },
    async (request) => listDatasets(ctx.db, orgCallerOf(request).orgId),
  );
}
