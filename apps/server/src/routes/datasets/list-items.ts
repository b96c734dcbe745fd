import { Type } from 'typebox';
import type { Context } from '../../context.ts';
import { DatasetItemSchema } from '../../domain/datasets/dataset-schema.ts';
import { ITEM_ID_MAX_LENGTH } from '../../domain/datasets/item.ts';
import {
  ITEMS_PAGE_DEFAULT,
  ITEMS_PAGE_MAX,
  ITEMS_PAGE_MAX_BYTES,
  listItems,
} from '../../domain/datasets/items-page.ts';
import type { App } from '../../http/app-types.ts';
import { problemResponses } from '../../http/responses.ts';
import { orgCallerOf } from '../../http/session-or-key-auth.ts';
import { Text } from '../../schemas/text.ts';
import { AUTH_NOTE, DatasetParams, NOT_RATE_LIMITED, SESSION_OR_SECRET_KEY } from './schemas.ts';

const ItemsQuery = Type.Object(
  {
    version: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 2_147_483_647,
        description: 'The version to read; the latest when absent',
      }),
    ),
    limit: Type.Optional(
      Type.Integer({ minimum: 1, maximum: ITEMS_PAGE_MAX, default: ITEMS_PAGE_DEFAULT }),
    ),
    starting_after: Type.Optional(
      Text({
        minLength: 1,
        maxLength: ITEM_ID_MAX_LENGTH,
        description: 'An item id, the last of a page: the page of the items after it',
      }),
    ),
  },
  { additionalProperties: false },
);

const ItemPageSchema = Type.Object({
  data: Type.Array(DatasetItemSchema),
  has_more: Type.Boolean({ description: 'More items lie after this page' }),
  version: Type.Integer({ minimum: 1, description: 'The version read' }),
});

export function register(app: App, ctx: Pick<Context, 'db'>): void {
  app.get(
    '/v1/datasets/:id/items',
    {
      config: NOT_RATE_LIMITED,
      schema: {
        tags: ['datasets'],
        summary: "A page of a dataset version's items, by id",
        description: `Items sort by id (byte order). A page holds at most \`limit\` items (default ${ITEMS_PAGE_DEFAULT}, at most ${ITEMS_PAGE_MAX}) and ${ITEMS_PAGE_MAX_BYTES / 1024 / 1024} MiB of item JSON (one item always fits); the next page is \`starting_after=<the last id>\` while \`has_more\`. A version that does not exist is a 404. ${AUTH_NOTE}`,
        security: SESSION_OR_SECRET_KEY,
        params: DatasetParams,
        querystring: ItemsQuery,
        response: { 200: ItemPageSchema, ...problemResponses(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const { version, limit = ITEMS_PAGE_DEFAULT, starting_after } = request.query;
      return listItems(ctx.db, orgCallerOf(request).orgId, request.params.id, {
        limit,
        ...(version === undefined ? {} : { version }),
        ...(starting_after === undefined ? {} : { startingAfter: starting_after }),
      });
    },
  );
}
