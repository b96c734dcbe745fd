import { Type } from 'typebox';
import { LastRunSchema, readLastRuns } from '../../analysis/results/last-runs.ts';
import type { Context } from '../../context.ts';
import { ExperimentSchema } from '../../domain/experiments/experiment-schema.ts';
import type { ExperimentStatus } from '../../domain/experiments/lifecycle/states.ts';
import { listExperiments } from '../../domain/experiments/service.ts';
import { DomainError } from '../../domain/outcomes.ts';
import type { App } from '../../http/app-types.ts';
import { problemResponses } from '../../http/responses.ts';
import { callerOf } from '../../http/session-auth.ts';

/** An experiment of the list, with when the pipeline last looked at it. */
const ListedExperimentSchema = Type.Object({
  ...ExperimentSchema.properties,
  last_run: Type.Union([LastRunSchema, Type.Null()]),
});

const STATUSES: readonly ExperimentStatus[] = ['draft', 'running', 'stopped', 'archived'];

const STATUS_ALTERNATION = `(${STATUSES.join('|')})`;

const ListQuery = Type.Object(
  {
    status: Type.Optional(
      Type.String({
        // Declared, so a request the schema accepts is one the handler accepts: no empty list.
        pattern: `^ *${STATUS_ALTERNATION} *(, *${STATUS_ALTERNATION} *)*$`,
        description:
          'Comma-separated statuses to list (draft, running, stopped, archived); absent: every status but archived',
      }),
    ),
  },
  { additionalProperties: false },
);

/** The statuses a `status` query names, refused (400) when one is not a status. */
function statusesOf(query: string | undefined): ExperimentStatus[] | undefined {
  if (query === undefined) return undefined;
  const named = query.split(',').map((s) => s.trim());
  const unknown = named.filter((s) => !STATUSES.includes(s as ExperimentStatus));
  if (unknown.length > 0 || named.length === 0)
    throw new DomainError(
      'config-invalid',
      `status lists statuses (${STATUSES.join(', ')}) separated by commas; ${JSON.stringify(unknown[0] ?? '')} is not one`,
    );
  return named as ExperimentStatus[];
}

export function register(app: App, ctx: Pick<Context, 'db'>): void {
  app.get(
    '/v1/experiments',
    {
      schema: {
        tags: ['experiments'],
        summary:
          "List the org's experiments, latest version each, with each one's latest analysis run of any status; archived ones only when `status` names them",
        querystring: ListQuery,
        response: { 200: Type.Array(ListedExperimentSchema), ...problemResponses(400, 401, 403) },
      },
    },
    async (request) => {
      const orgId = callerOf(request).orgId;
      const statuses = statusesOf(request.query.status);
      const [list, lastRuns] = await Promise.all([
        listExperiments(ctx.db, orgId, statuses),
        readLastRuns(ctx.db, orgId),
      ]);
      return list.map((e) => ({ ...e, last_run: lastRuns.get(e.id) ?? null }));
    },
  );
}
