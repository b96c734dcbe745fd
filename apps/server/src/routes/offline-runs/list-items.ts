import { Type } from 'typebox';
import type { Context } from '../../context.ts';
import { ITEM_ID_MAX_LENGTH } from '../../domain/datasets/item.ts';
import { listRunItems, RUN_ITEMS_DEFAULT, RUN_ITEMS_MAX } from '../../domain/offline-runs/items.ts';
import type { App } from '../../http/app-types.ts';
import { problemResponses } from '../../http/responses.ts';
import { orgCallerOf } from '../../http/session-or-key-auth.ts';
import { Text } from '../../schemas/text.ts';
import { AUTH_NOTE, NOT_RATE_LIMITED, RunParams, SESSION_OR_SECRET_KEY } from './schemas.ts';

const ItemsQuery = Type.Object(
  {
    treatment: Type.Optional(
      Text({ minLength: 1, maxLength: 64, description: 'The first treatment when absent' }),
    ),
    scorer: Type.Optional(
      Text({ minLength: 1, maxLength: 64, description: "The run's first scorer when absent" }),
    ),
    sort: Type.Optional(
      Type.Enum(['regressions', 'improvements', 'item'], {
        default: 'regressions',
        description:
          'regressions: worst difference for the treatment first (by the scorer’s direction); improvements: best first; item: by id',
      }),
    ),
    limit: Type.Optional(
      Type.Integer({ minimum: 1, maximum: RUN_ITEMS_MAX, default: RUN_ITEMS_DEFAULT }),
    ),
    starting_after: Type.Optional(
      Text({
        minLength: 1,
        maxLength: ITEM_ID_MAX_LENGTH,
        description: 'The last item id of the previous page',
      }),
    ),
  },
  { additionalProperties: false },
);

const ResultView = Type.Object({
  repeat: Type.Integer(),
  output: Type.Unknown({ description: 'What the task returned; null when none' }),
  error: Type.Union([Type.String(), Type.Null()]),
  latency_ms: Type.Union([Type.Number(), Type.Null()]),
  input_tokens: Type.Union([Type.Integer(), Type.Null()]),
  output_tokens: Type.Union([Type.Integer(), Type.Null()]),
  cost: Type.Union([Type.Number(), Type.Null()]),
  model: Type.Union([Type.String(), Type.Null()]),
  scores: Type.Record(Type.String(), Type.Number(), {
    description: 'Each scorer’s value for this result (empty before the run completes)',
  }),
});

const ItemsPage = Type.Object({
  data: Type.Array(
    Type.Object({
      id: Type.String(),
      input: Type.Unknown({ description: 'The item’s input: a string or a JSON object' }),
      expected_output: Type.Unknown({ description: 'Null when the item has none' }),
      group: Type.Union([Type.String(), Type.Null()]),
      difference: Type.Union([Type.Number(), Type.Null()], {
        description:
          'y(treatment, i) − y(baseline, i) on the scorer (means over repeats); null when either has no value',
      }),
      variants: Type.Record(Type.String(), Type.Array(ResultView), {
        description: 'Per variant, its results by repeat',
      }),
    }),
  ),
  has_more: Type.Boolean(),
  treatment: Type.Union([Type.String(), Type.Null()]),
  scorer: Type.Union([Type.String(), Type.Null()]),
  sort: Type.Enum(['regressions', 'improvements', 'item']),
});

export function register(app: App, ctx: Pick<Context, 'db'>): void {
  app.get(
    '/v1/offline-runs/:run_id/items',
    {
      config: NOT_RATE_LIMITED,
      schema: {
        tags: ['offline-runs'],
        summary: "A page of the run's items with every variant's outputs and scores",
        description: `Items of the pinned dataset version with each variant's results per repeat and the item's difference on one scorer and treatment. Items without a difference sort last; ties by id. ${AUTH_NOTE}`,
        security: SESSION_OR_SECRET_KEY,
        params: RunParams,
        querystring: ItemsQuery,
        response: { 200: ItemsPage, ...problemResponses(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const { treatment, scorer, sort = 'regressions', limit = RUN_ITEMS_DEFAULT } = request.query;
      const startingAfter = request.query.starting_after;
      return listRunItems(ctx.db, orgCallerOf(request).orgId, request.params.run_id, {
        sort,
        limit,
        ...(treatment === undefined ? {} : { treatment }),
        ...(scorer === undefined ? {} : { scorer }),
        ...(startingAfter === undefined ? {} : { startingAfter }),
      });
    },
  );
}
