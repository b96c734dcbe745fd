import { Type } from 'typebox';
import { readResults } from '../../analysis/results/results.ts';
import { ExportRowSchema, exportCsv, exportRows } from '../../analysis/results/results-export.ts';
import type { Context } from '../../context.ts';
import { getExperiment } from '../../domain/experiments/service.ts';
import type { App } from '../../http/app-types.ts';
import { resultsOrProblem } from '../../http/collecting-problem.ts';
import { problemResponses } from '../../http/responses.ts';
import { callerOf } from '../../http/session-auth.ts';
import { RunLabelParam } from '../../schemas/run-label.ts';
import { ExperimentParams } from './get-experiment.ts';
import { DimensionParam } from './schemas.ts';

export function register(app: App, ctx: Pick<Context, 'clock' | 'config' | 'db' | 'shards'>): void {
  app.get(
    '/v1/experiments/:id/results/export',
    {
      schema: {
        tags: ['results'],
        summary:
          'One run’s results as rows (one per metric × treatment, every MetricResult field, FDR p, SRM status, run label and window; with ?dimension= also one per metric × treatment × slice): JSON or RFC 4180 CSV',
        params: ExperimentParams,
        querystring: Type.Object(
          {
            day: Type.Optional(
              RunLabelParam(
                'A day YYYY-MM-DD or a label manual-<ISO instant>; default: the default results view',
              ),
            ),
            format: Type.Optional(Type.Enum(['json', 'csv'], { default: 'json' })),
            dimension: Type.Optional(DimensionParam),
          },
          { additionalProperties: false },
        ),
        produces: ['application/json', 'text/csv'],
        response: {
          200: {
            description:
              'The rows: a JSON array, or CSV with a header row (CRLF, quoted as needed)',
            content: {
              'application/json': { schema: Type.Array(ExportRowSchema) },
              'text/csv': { schema: Type.String() },
            },
          },
          ...problemResponses(400, 401, 403, 404),
        },
      },
    },
    async (request, reply) => {
      const experiment = await getExperiment(ctx.db, callerOf(request).orgId, request.params.id);
      const run = resultsOrProblem(
        await readResults(
          ctx,
          experiment,
          request.query.day,
          {
            orgId: callerOf(request).orgId,
            minEventsPerArm: ctx.config.minEventsPerArm,
            now: ctx.clock.now(),
          },
          request.query.dimension,
        ),
      );
      const rows = exportRows(run);
      if (request.query.format !== 'csv') return reply.type('application/json').send(rows);
      const file = `${experiment.name}-${run.computed_for}`.replace(/[^A-Za-z0-9._-]/g, '_');
      reply.header('content-disposition', `attachment; filename="${file}.csv"`);
      return reply.type('text/csv; charset=utf-8').send(exportCsv(rows));
    },
  );
}
