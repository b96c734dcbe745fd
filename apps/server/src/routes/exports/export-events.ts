import { Readable } from 'node:stream';
import { Type } from 'typebox';
import type { Context } from '../../context.ts';
import { exportedExperimentId, exportLines } from '../../domain/events-export/export-lines.ts';
import { modelTextReader } from '../../domain/events-export/model-text.ts';
import type { App } from '../../http/app-types.ts';
import { problemResponses } from '../../http/responses.ts';
import { orgCallerOf } from '../../http/session-or-key-auth.ts';
import { DayParam } from '../../schemas/run-label.ts';
import { Text } from '../../schemas/text.ts';

/** Either credential (OR): an admin's or owner's dashboard session, or the org's secret key. */
const ADMIN_SESSION_OR_SECRET_KEY: Array<Record<string, string[]>> = [
  { session: [] },
  { apiKey: [] },
];

const ExportQuery = Type.Object(
  {
    experiment: Text({
      minLength: 1,
      maxLength: 200,
      description: 'The experiment id, or its name',
    }),
    day: DayParam('The UTC day YYYY-MM-DD the events’ `timestamp` falls on'),
  },
  { additionalProperties: false },
);

export function register(app: App, ctx: Pick<Context, 'db' | 'modelText' | 'shards'>): void {
  app.get(
    '/v1/events/export',
    {
      config: { rateLimit: false },
      schema: {
        tags: ['exports'],
        summary: 'Every stored event of one experiment on one UTC day, as NDJSON',
        description:
          'One event a line, as `POST /v1/events` takes it (the experiment by id, the variant as assigned, a field without a value left out) plus `received_at`; exposures, model calls and business events alike, ordered by `timestamp`, then `event_id` in byte order. The answer streams: a day of any size is read a page at a time. An admin’s or owner’s dashboard session, or the org’s secret key (`svc_sk_`) in `X-API-Key`; a member’s session (403) and a publishable key (401) are refused.',
        security: ADMIN_SESSION_OR_SECRET_KEY,
        querystring: ExportQuery,
        produces: ['application/x-ndjson'],
        response: {
          200: {
            description:
              'NDJSON: one JSON object a line, each ending in a line feed; no line for a day without events',
            content: { 'application/x-ndjson': { schema: Type.String() } },
          },
          ...problemResponses(400, 401, 403, 404),
        },
      },
    },
    async (request, reply) => {
      const { orgId } = orgCallerOf(request);
      const experimentId = await exportedExperimentId(ctx.db, orgId, request.query.experiment);
      const lines = exportLines(
        ctx.shards,
        { orgId, experimentId, day: request.query.day },
        modelTextReader(ctx.modelText),
      );
      // The first line is read before the status goes out: every shard's first page is read
      // for it, so a shard that does not answer is a 503, not a 200 missing its users.
      const first = await lines.next();
      const file = `${request.query.experiment}-${request.query.day}`.replace(
        /[^A-Za-z0-9._-]/g,
        '_',
      );
      reply.header('content-disposition', `attachment; filename="${file}.ndjson"`);
      // The type provider types the body as the documented string; Fastify pipes a stream as is.
      const body: unknown = Readable.from(startingWith(first, lines));
      return reply.type('application/x-ndjson; charset=utf-8').send(body as string);
    },
  );
}

/** The lines again, the one already read first. */
async function* startingWith(
  first: IteratorResult<string>,
  rest: AsyncGenerator<string>,
): AsyncGenerator<string> {
  if (first.done) return;
  yield first.value;
  yield* rest;
}
