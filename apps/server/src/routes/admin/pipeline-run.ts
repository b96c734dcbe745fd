import { Type } from 'typebox';
import { type NightlyDeps, runNightly } from '../../analysis/run/nightly.ts';
import type { App } from '../../http/app-types.ts';
import { problemResponses } from '../../http/responses.ts';
import { previousUtcDay } from '../../kernel/utc-day.ts';
import { DayParam } from '../../schemas/run-label.ts';

export function register(app: App, ctx: NightlyDeps): void {
  app.post(
    '/v1/admin/pipeline/run',
    {
      schema: {
        tags: ['admin'],
        summary:
          'Run the nightly pipeline for one UTC day now (default: yesterday); re-running a day replaces it',
        body: Type.Union([
          Type.Object(
            { day: Type.Optional(DayParam('The UTC day YYYY-MM-DD to run')) },
            { additionalProperties: false },
          ),
          Type.Null(),
        ]),
        response: {
          200: Type.Object({
            day: Type.String(),
            ran: Type.Boolean({
              description: 'false when another process holds the nightly lease',
            }),
            experiments: Type.Array(
              Type.Object({
                experiment_id: Type.String(),
                name: Type.String(),
                status: Type.String({
                  description:
                    'computed, srm_halted or collecting; failed when the run could not read its data (a shard down, say): nothing was stored, and the next run retries it',
                }),
                reason: Type.Optional(Type.String({ description: 'Why a failed run failed' })),
              }),
            ),
            skipped: Type.Array(
              Type.Object({
                experiment_id: Type.String(),
                name: Type.String(),
                created_at: Type.String(),
                reason: Type.String(),
              }),
              { description: 'Experiments created after the day: its run cannot cover them' },
            ),
            purged_events: Type.Integer(),
          }),
          ...problemResponses(400, 401, 403, 503),
        },
      },
    },
    async (request) =>
      runNightly(
        ctx,
        request.body?.day ?? previousUtcDay(ctx.clock.now()),
        ctx.config.runFoldWaitMs,
      ),
  );
}
