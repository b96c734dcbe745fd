import { variantForBucket } from '@arbiter/bucketing';
import { Type } from 'typebox';
import type { Context } from '../../context.ts';
import { keyCallerOf } from '../../http/api-key-auth.ts';
import type { App } from '../../http/app-types.ts';
import { problemResponses } from '../../http/responses.ts';
import { Text } from '../../schemas/text.ts';

const AssignResponse = Type.Object({
  variant: Type.Union([Type.String(), Type.Null()], {
    description: 'null: use the control behaviour',
  }),
  config_version: Type.Integer(),
  reason: Type.Optional(
    Type.Enum(['not_enrolled', 'unknown_experiment'], { description: 'Why variant is null' }),
  ),
});

export function register(app: App, ctx: Context): void {
  app.post(
    '/v1/assign',
    {
      schema: {
        tags: ['ingest'],
        summary: 'Server-side assignment for callers without a client library (free of charge)',
        security: [{ apiKey: [] }],
        body: Type.Object(
          {
            experiment_id: Text({
              minLength: 1,
              maxLength: 200,
              description: 'Experiment id or unique name',
            }),
            user_id: Text({
              minLength: 1,
              maxLength: 256,
              description:
                'Refused (400) when an event could not carry it: no NUL or unpaired surrogate',
            }),
          },
          { additionalProperties: false },
        ),
        response: { 200: AssignResponse, ...problemResponses(400, 401, 429) },
      },
    },
    async (request) => {
      // From the in-memory org state: no database round trip on this path.
      const state = await ctx.orgState.get(keyCallerOf(request).orgId);
      const experiment = state.lookup.get(request.body.experiment_id);
      if (!experiment)
        return {
          variant: null,
          config_version: state.configVersion,
          reason: 'unknown_experiment' as const,
        };
      const variant = variantForBucket(
        experiment.ranges,
        experiment.bucketOf(request.body.user_id),
      );
      return variant === null
        ? { variant: null, config_version: state.configVersion, reason: 'not_enrolled' as const }
        : { variant, config_version: state.configVersion };
    },
  );
}
