import { Type } from 'typebox';
import type { Context } from '../../context.ts';
import { uploadResults } from '../../domain/offline-runs/results.ts';
import {
  RESULTS_MAX_ROWS,
  ResultRowSchema,
  ResultsAnswerSchema,
} from '../../domain/offline-runs/run-schema.ts';
import type { App } from '../../http/app-types.ts';
import { problemResponses } from '../../http/responses.ts';
import { orgCallerOf } from '../../http/session-or-key-auth.ts';
import { compileBodyValidator, validatorCompiler } from '../../schemas/validators.ts';
import { AUTH_NOTE, NOT_RATE_LIMITED, RunParams, SESSION_OR_SECRET_KEY } from './schemas.ts';

export const RESULTS_MAX_BYTES = 32 * 1024 * 1024;

/** The envelope is checked whole; each row on its own, so a bad row never sinks its batch. */
const Envelope = Type.Object(
  { results: Type.Array(Type.Unknown(), { maxItems: RESULTS_MAX_ROWS }) },
  { additionalProperties: false },
);

export function register(app: App, ctx: Pick<Context, 'db' | 'dbPool'>): void {
  app.post(
    '/v1/offline-runs/:run_id/results',
    {
      config: NOT_RATE_LIMITED,
      bodyLimit: RESULTS_MAX_BYTES,
      validatorCompiler: (route) =>
        route.httpPart === 'body' ? compileBodyValidator(Envelope) : validatorCompiler(route),
      schema: {
        tags: ['offline-runs'],
        summary: 'Upload results of a running run (at most 500 rows)',
        description: `Rows are independent: a bad row is reported by its 0-based \`index\` and skipped. A row is identified by (item_id, variant, repeat): the same row sent again counts as a duplicate, a different row under that identity as a conflict, and the first one stored is kept. \`item_id\` must be an item of the pinned dataset version, \`variant\` one of the run's, \`repeat\` below its repeats, and \`scores\` names its custom scorers. Results are not events: they meter nothing and never reach an online experiment's analysis. A run past \`running\` refuses results (409 \`offline-run-not-open\`). At most ${RESULTS_MAX_BYTES / 1024 / 1024} MiB. ${AUTH_NOTE}`,
        security: SESSION_OR_SECRET_KEY,
        params: RunParams,
        body: Type.Object(
          { results: Type.Array(ResultRowSchema, { maxItems: RESULTS_MAX_ROWS }) },
          { additionalProperties: false },
        ),
        response: {
          200: ResultsAnswerSchema,
          ...problemResponses(400, 401, 403, 404, 409, 413, 415),
        },
      },
    },
    async (request) =>
      uploadResults(
        ctx.db,
        ctx.dbPool,
        orgCallerOf(request).orgId,
        request.params.run_id,
        (request.body as { results: unknown[] }).results,
      ),
  );
}
