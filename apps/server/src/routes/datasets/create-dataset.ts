import type { Context } from '../../context.ts';
import { DatasetInputSchema, DatasetSchema } from '../../domain/datasets/dataset-schema.ts';
import { createDataset } from '../../domain/datasets/service.ts';
import type { App } from '../../http/app-types.ts';
import { created } from '../../http/created.ts';
import { problemResponses } from '../../http/responses.ts';
import { orgCallerOf } from '../../http/session-or-key-auth.ts';
import { AUTH_NOTE, NOT_RATE_LIMITED, SESSION_OR_SECRET_KEY } from './schemas.ts';

export function register(app: App, ctx: Pick<Context, 'clock' | 'db'>): void {
  app.post(
    '/v1/datasets',
    {
      config: NOT_RATE_LIMITED,
      schema: {
        tags: ['datasets'],
        summary: 'Create a dataset (version 1, no items)',
        description: `Names are unique in the org (a name already used is a 400 \`dataset-name-taken\`). ${AUTH_NOTE}`,
        security: SESSION_OR_SECRET_KEY,
        body: DatasetInputSchema,
        response: { 201: DatasetSchema, ...problemResponses(400, 401, 403, 413, 415) },
      },
    },
    async (request, reply) => {
      const dataset = await createDataset(
        ctx.db,
        orgCallerOf(request),
        request.body,
        ctx.clock.now(),
      );
      return created(reply, `/v1/datasets/${dataset.id}`, dataset);
    },
  );
}
