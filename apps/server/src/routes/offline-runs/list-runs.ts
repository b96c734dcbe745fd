import { Type } from 'typebox';
import type { Context } from '../../context.ts';
import { RunSchema } from '../../domain/offline-runs/run-schema.ts';
import { listRuns } from '../../domain/offline-runs/service.ts';
import type { App } from '../../http/app-types.ts';
import { problemResponses } from '../../http/responses.ts';
import { orgCallerOf } from '../../http/session-or-key-auth.ts';
import { AUTH_NOTE, ExperimentParams, NOT_RATE_LIMITED, SESSION_OR_SECRET_KEY } from './schemas.ts';

export function register(app: App, ctx: Pick<Context, 'db'>): void {
  app.get(
    '/v1/experiments/:id/offline-runs',
    {
      config: NOT_RATE_LIMITED,
      schema: {
        tags: ['offline-runs'],
        summary: "The experiment's offline runs, newest first",
        description: AUTH_NOTE,
        security: SESSION_OR_SECRET_KEY,
        params: ExperimentParams,
        response: { 200: Type.Array(RunSchema), ...problemResponses(401, 403, 404) },
      },
    },
    async (request) => listRuns(ctx.db, orgCallerOf(request).orgId, request.params.id),
  );
}
