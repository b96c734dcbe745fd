import { Type } from 'typebox';
import type { Context } from '../../context.ts';
import { addTallies } from '../../domain/targeting/tallies.ts';
import { keyCallerOf } from '../../http/api-key-auth.ts';
import type { App } from '../../http/app-types.ts';
import { ProblemError } from '../../http/problems.ts';
import { problemResponses } from '../../http/responses.ts';
import { DAY_MS, utcDay } from '../../kernel/utc-day.ts';
import { DayParam } from '../../schemas/run-label.ts';

/** Tallies one request may carry: a client sends one per experiment and day it saw. */
export const MAX_TALLIES_PER_REQUEST = 1000;
/** A single count past this is no client's tally of one process's day. */
const MAX_COUNT = 1_000_000_000;

const Count = Type.Integer({ minimum: 0, maximum: MAX_COUNT });

const TalliesBody = Type.Object(
  {
    tallies: Type.Array(
      Type.Object(
        {
          experiment_id: Type.String({ format: 'uuid', description: 'The experiment’s id' }),
          day: DayParam('The UTC day of the checks'),
          matched: Count,
          excluded: Count,
        },
        { additionalProperties: false },
      ),
      { minItems: 1, maxItems: MAX_TALLIES_PER_REQUEST },
    ),
  },
  { additionalProperties: false },
);

const TalliesAck = Type.Object({
  accepted: Type.Integer({ description: 'Tallies added to their experiment’s sums' }),
  rejected: Type.Array(Type.Object({ pointer: Type.String(), detail: Type.String() }), {
    description: 'Tallies naming no experiment of the key’s org, left out',
  }),
});

/** A day past tomorrow (UTC) is no clock's today: refused, so a bad clock cannot skew a window. */
function refuseFutureDays(tallies: ReadonlyArray<{ day: string }>, now: Date): void {
  const latest = utcDay(new Date(now.getTime() + DAY_MS));
  const errors = tallies.flatMap((t, i) =>
    t.day > latest ? [{ pointer: `#/tallies/${i}/day`, detail: `is after ${latest}` }] : [],
  );
  if (errors.length > 0)
    throw new ProblemError('validation-error', 'A tally’s day is in the future', { errors });
}

export function register(app: App, ctx: Pick<Context, 'clock' | 'db'>): void {
  app.post(
    '/v1/targeting-tallies',
    {
      schema: {
        tags: ['ingest'],
        summary: `Report how many users reached each experiment’s targeting per UTC day (at most ${MAX_TALLIES_PER_REQUEST} tallies); secret key only, not metered`,
        description:
          'The client libraries send, per experiment with targeting and UTC day, the distinct users whose check reached the targeting: `matched` entered, `excluded` got null and sent no exposure. The counts are added to the sums the results route shows as `targeting`; they carry no user and never reach the analysis. A tally naming no experiment of the key’s org is listed in `rejected` and the rest are added.',
        security: [{ apiKey: [] }],
        body: TalliesBody,
        response: { 200: TalliesAck, ...problemResponses(400, 401, 413, 415, 429) },
      },
    },
    async (request) => {
      const { tallies } = request.body;
      refuseFutureDays(tallies, ctx.clock.now());
      const { unknown } = await addTallies(ctx.db, keyCallerOf(request).orgId, tallies);
      return {
        accepted: tallies.length - unknown.length,
        rejected: unknown.map((i) => ({
          pointer: `#/tallies/${i}/experiment_id`,
          detail: 'no experiment of this org has this id',
        })),
      };
    },
  );
}
