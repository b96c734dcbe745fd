import type { Context } from '../../context.ts';
import { DatasetSchema } from '../../domain/datasets/dataset-schema.ts';
import { getDataset } from '../../domain/datasets/service.ts';
import type { App } from '../../http/app-types.ts';
import { problemResponses } from '../../http/responses.ts';
import { orgCallerOf } from '../../http/session-or-key-auth.ts';
import { AUTH_NOTE, DatasetParams, NOT_RATE_LIMITED, SESSION_OR_SECRET_KEY } from './schemas.ts';

export function register(app: App, ctx: Pick<Context, 'db'>): void {
  app.get(
    '/v1/datasets/:id',
    {
      config: NOT_RATE_LIMITED,
      schema: {
        tags: ['datasets'],
        summary: 'Read a dataset at its latest version, with its item_count',
        description: AUTH_NOTE,
        security: SESSION_OR_SECRET_KEY,
        params: DatasetParams,
        response: { 200: DatasetSchema, ...problemResponses(401, 403, 404) },
      },
    },
    async (request) => getDataset(ctx.db, orgCallerOf(request).orgId, request.params.id),
  );
}
