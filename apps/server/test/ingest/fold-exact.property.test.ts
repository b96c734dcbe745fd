import { NUMERIC_DOMAINS } from '@arbiter/contract';
import { sql } from 'drizzle-orm';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rows } from '../../src/db/connect.ts';
import { type Harness, startHarness } from '../support/harness.ts';
import { foldEverything } from '../support/ingest-probe.ts';

// A fuzz test of the fold: random events with extreme but
// accepted values go through the real accept → fold path (PGlite, and PostgreSQL in the
// test command's PostgreSQL pass); every per-arm count and sum in the aggregates must
// equal a recomputation in exact arithmetic — SQL `numeric` over the stored raw events, and
// BigInt in the test for the integer token counts.

let h: Harness;
let acme: Awaited<ReturnType<Harness['org']>>;

beforeAll(async () => {
  h = await startHarness();
  acme = await h.org('fold-fuzz');
});
afterAll(() => h.close());

const ARMS = ['control', 'treatment'] as const;
const { latency_ms, input_tokens: tokens, cost_usd, value } = NUMERIC_DOMAINS;

/** A double in [min, max], biased to the ends and the awkward values in between. */
const extreme = (min: number, max: number) =>
  fc
    .oneof(
      fc.constantFrom(min, max, 0, Number.MIN_VALUE, 0.1, 1 / 3),
      fc.double({ min, max, noNaN: true, noDefaultInfinity: true }),
    )
    .filter((x) => x >= min && x <= max);

const tokenCount = fc.oneof(
  fc.constantFrom(tokens.minimum, tokens.maximum, 1),
  fc.integer({ min: tokens.minimum, max: tokens.maximum }),
);

const modelCall = fc.record({
  type: fc.constant('model_call' as const),
  arm: fc.constantFrom(...ARMS),
  user: fc.integer({ min: 0, max: 4 }),
  latency_ms: fc.option(extreme(latency_ms.minimum, latency_ms.maximum), { nil: undefined }),
  input_tokens: fc.option(tokenCount, { nil: undefined }),
  output_tokens: fc.option(tokenCount, { nil: undefined }),
  cost_usd: fc.option(extreme(cost_usd.minimum, cost_usd.maximum), { nil: undefined }),
});
const businessEvent = fc.record({
  type: fc.constant('business_event' as const),
  arm: fc.constantFrom(...ARMS),
  user: fc.integer({ min: 0, max: 4 }),
  value: extreme(value.minimum, value.maximum),
});
const batch = fc.array(fc.oneof(modelCall, businessEvent), { minLength: 1, maxLength: 60 });

/** Per arm: the aggregates and the same sums recomputed from the raw events, both as exact text. */
async function perArm(experimentId: string) {
  return rows<{ variant: string; folded: string; recomputed: string }>(
    h.ctx.db,
    sql`
      with folded as (
        select variant, concat_ws(' ',
          coalesce(sum(latency_n), 0), coalesce(sum(latency_sum), 0),
          coalesce(sum(tokens_n), 0), coalesce(sum(tokens_sum), 0),
          coalesce(sum(cost_sum), 0), coalesce(sum(cost_n), 0)) as s
        from user_day_stats where experiment_id = ${experimentId} group by variant
      ),
      folded_business as (
        select variant, concat_ws(' ', sum(n), sum(sum)) as s
        from user_day_business where experiment_id = ${experimentId} group by variant
      ),
      calls as (
        select variant, user_id, occurred_at::date as d, latency_ms::numeric as lat,
          cost_usd::numeric as cost,
          case when input_tokens is not null or output_tokens is not null
            then coalesce(input_tokens, 0)::numeric + coalesce(output_tokens, 0)::numeric end as tok
        from events where experiment_id = ${experimentId} and type = 'model_call'
      ),
      raw as (
        select variant, concat_ws(' ',
          count(lat), coalesce(sum(lat), 0),
          count(tok), coalesce(sum(tok), 0),
          coalesce(sum(cost), 0), count(cost)) as s
        from calls group by variant
      ),
      raw_business as (
        select variant, concat_ws(' ', count(*), sum(value::numeric)) as s
        from events where experiment_id = ${experimentId} and type = 'business_event' group by variant
      )
      select v.variant,
        concat_ws(' | ', f.s, fb.s) as folded,
        concat_ws(' | ', r.s, rb.s) as recomputed
      from (select unnest(array['control', 'treatment']) as variant) v
      left join folded f using (variant)
      left join folded_business fb using (variant)
      left join raw r using (variant)
      left join raw_business rb using (variant)
      order by v.variant`,
  );
}

type Sent = (typeof batch extends fc.Arbitrary<infer T> ? T : never)[number];

/** `kind arm value` → calls, as `call_value_counts` should hold them for what was sent. */
function expectedValueCounts(list: readonly Sent[]): Record<string, number> {
  const counts: Record<string, number> = {};
  const add = (kind: string, arm: string, v: number) => {
    const key = `${kind} ${arm} ${v}`;
    counts[key] = (counts[key] ?? 0) + 1;
  };
  for (const e of list) {
    if (e.type !== 'model_call') continue;
    if (e.latency_ms !== undefined) add('latency', e.arm, e.latency_ms);
    if (e.input_tokens !== undefined || e.output_tokens !== undefined)
      add('tokens', e.arm, (e.input_tokens ?? 0) + (e.output_tokens ?? 0));
    if (e.cost_usd !== undefined) add('cost', e.arm, e.cost_usd);
  }
  return counts;
}

async function valueCounts(experimentId: string): Promise<Record<string, number>> {
  const found = await rows<{ kind: string; variant: string; value: number; n: string | number }>(
    h.ctx.db,
    sql`select kind, variant, value, n from call_value_counts where experiment_id = ${experimentId}`,
  );
  return Object.fromEntries(found.map((r) => [`${r.kind} ${r.variant} ${r.value}`, Number(r.n)]));
}

describe('the fold is exact on extreme accepted values', () => {
  it('per-arm counts and sums equal exact recomputations (numeric over raw events, BigInt for tokens)', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(batch, async (list) => {
        run++;
        const experimentId = await h.experiment(acme.admin, { name: `fuzz-${run}-${Date.now()}` });
        const now = new Date().toISOString();
        const sent = list.map((e, i) => {
          const { arm, user, ...fields } = e;
          return {
            event_id: `fz-${run}-${i}`,
            experiment_id: experimentId,
            user_id: `fz-user-${user}`,
            variant: arm,
            timestamp: now,
            ...(fields.type === 'business_event' ? { business_metric: 'revenue' } : {}),
            ...Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined)),
          };
        });
        const res = await h.ingest(acme.secret, {
          method: 'POST',
          url: '/v1/events',
          payload: { events: sent },
        });
        expect(res.statusCode).toBe(202);
        expect(res.json()).toMatchObject({ accepted: list.length, rejected: [] });
        await foldEverything(h);
        expect(await h.ctx.eventLog.depth()).toBe(0);

        const arms = await perArm(experimentId);
        for (const arm of arms) expect(arm.folded).toBe(arm.recomputed);

        // tokens are integers: BigInt gives the exact per-arm count and sum independently
        for (const arm of ARMS) {
          let n = 0n;
          let sum = 0n;
          for (const e of list) {
            if (e.type !== 'model_call' || e.arm !== arm) continue;
            if (e.input_tokens === undefined && e.output_tokens === undefined) continue;
            const t = BigInt(e.input_tokens ?? 0) + BigInt(e.output_tokens ?? 0);
            n++;
            sum += t;
          }
          const [row] = await rows<{ n: string; sum: string }>(
            h.ctx.db,
            sql`select coalesce(sum(tokens_n), 0)::text as n, coalesce(sum(tokens_sum), 0)::text as sum
              from user_day_stats where experiment_id = ${experimentId} and variant = ${arm}`,
          );
          expect(row).toEqual({ n: String(n), sum: String(sum) });
        }

        // A retried batch (a lost 202) changes nothing; then the quantile kinds' counts per
        // value, recomputed here from what was sent (tokens: the double sum, as PostgreSQL's).
        const again = await h.ingest(acme.secret, {
          method: 'POST',
          url: '/v1/events',
          payload: { events: sent },
        });
        expect(again.statusCode).toBe(202);
        await foldEverything(h);
        expect(await perArm(experimentId)).toEqual(arms);
        expect(await valueCounts(experimentId)).toEqual(expectedValueCounts(list));
      }),
      { numRuns: 12, endOnFailure: true },
    );
  });
});
