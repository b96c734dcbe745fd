import type { Context } from '../../context.ts';
import { DatasetSchema } from '../../domain/datasets/dataset-schema.ts';
import { deleteItem } from '../../domain/datasets/service.ts';
import type { App } from '../../http/app-types.ts';
import { problemResponses } from '../../http/responses.ts';
import { orgCallerOf } from '../../http/session-or-key-auth.ts';
import {
  AUTH_NOTE,
  DatasetItemParams,
  NOT_RATE_LIMITED,
  SESSION_OR_SECRET_KEY,
} from './schemas.ts';

export function register(app: App, ctx: Pick<Context, 'clock' | 'db'>): void {
  app.delete(
    '/v1/datasets/:id/items/:item_id',
    {
      config: NOT_RATE_LIMITED,
      schema: {
        tags: ['datasets'],
        summary: 'Delete an item: mints a new version without it; answers the dataset',
        description: `Earlier versions keep the item, so a run pinned to one still reads it. ${AUTH_NOTE}`,
        security: SESSION_OR_SECRET_KEY,
        params: DatasetItemParams,
        response: { 200: DatasetSchema, ...problemResponses(401, 403, 404) },
      },
    },
    async (request) =>
      deleteItem(
        ctx.db,
        orgCallerOf(request),
        request.params.id,
        request.params.item_id,
        ctx.clock.now(),
      ),
  );
}
