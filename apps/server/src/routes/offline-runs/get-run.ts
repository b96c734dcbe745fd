import type { Context } from '../../context.ts';
import { RunSchema } from '../../domain/offline-runs/run-schema.ts';
import { getRun } from '../../domain/offline-runs/service.ts';
import type { App } from '../../http/app-types.ts';
import { problemResponses } from '../../http/responses.ts';
import { orgCallerOf } from '../../http/session-or-key-auth.ts';
import { AUTH_NOTE, NOT_RATE_LIMITED, RunParams, SESSION_OR_SECRET_KEY } from './schemas.ts';

export function register(app: App, ctx: Pick<Context, 'db'>): void {
  app.get(
    '/v1/offline-runs/:run_id',
    {
      config: NOT_RATE_LIMITED,
      schema: {
        tags: ['offline-runs'],
        summary: 'An offline run: status, coverage, comparisons, non-determinism and gates',
        description: `\`coverage\`, \`comparisons\` (keyed \`<scorer>::<treatment>\`), \`summary\` (non-determinism keyed \`<scorer>::<variant>\`, when repeats ≥ 2) and \`gates\` (per treatment) are null until the run is complete. ${AUTH_NOTE}`,
        security: SESSION_OR_SECRET_KEY,
        params: RunParams,
        response: { 200: RunSchema, ...problemResponses(401, 403, 404) },
      },
    },
    async (request) => getRun(ctx.db, orgCallerOf(request).orgId, request.params.run_id),
  );
}
