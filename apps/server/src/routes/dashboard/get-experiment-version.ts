import { Type } from 'typebox';
import type { Context } from '../../context.ts';
import { ExperimentSchema } from '../../domain/experiments/experiment-schema.ts';
import { getVersion } from '../../domain/experiments/version-pages.ts';
import type { App } from '../../http/app-types.ts';
import { problemResponses } from '../../http/responses.ts';
import { callerOf } from '../../http/session-auth.ts';
import { Text } from '../../schemas/text.ts';

const VersionParams = Type.Object({
  id: Text({ maxLength: 200 }),
  version: Type.Integer({ minimum: 1, maximum: 2_147_483_647 }),
});

export function register(app: App, ctx: Pick<Context, 'db'>): void {
  app.get(
    '/v1/experiments/:id/versions/:version',
    {
      schema: {
        tags: ['experiments'],
        summary: 'Read one retained version of an experiment by its number',
        params: VersionParams,
        response: { 200: ExperimentSchema, ...problemResponses(400, 401, 403, 404) },
      },
    },
    async (request) =>
      getVersion(ctx.db, callerOf(request).orgId, request.params.id, request.params.version),
  );
}
