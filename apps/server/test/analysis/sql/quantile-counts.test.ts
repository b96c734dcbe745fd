import { readFileSync } from 'node:fs';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ValueScope } from '../../../src/analysis/reads/value-scope.ts';
import { readFoldedQuantileArms } from '../../../src/analysis/sql/quantile-counts-sql.ts';
import { readQuantileArms } from '../../../src/analysis/sql/quantile-sql.ts';
import { rows } from '../../../src/db/connect.ts';
import { quarantineStatement } from '../../../src/ingest/fold-sql.ts';
import type { MetricDefinition } from '../../../src/schemas/experiment-config.ts';
import { type Harness, startHarness } from '../../support/harness.ts';
import { exposureOf, foldEverything } from '../../support/ingest-probe.ts';

/**
 * A run's quantile reads what the fold keeps (`call_value_counts`, the per-user counts, and the
 * raw calls above the estimate only); it must give exactly what the quantile over every raw
 * call gives, with ties, users without calls, a quarantined call, and calls still queued for
 * the fold (left out of both, as they are out of every aggregate). The migration's backfill
 * must rebuild what the fold keeps.
 */
let h: Harness;
let acme: Awaited<ReturnType<Harness['org']>>;
let experimentId: string;
let scope: ValueScope;

// The server's clock stands at noon: calls 20 hours earlier fall on the day before, still
// within a live event's day of grace; the experiment exists from two days earlier.
const now = Math.floor(Date.now() / 86_400_000) * 86_400_000 + 12 * 3_600_000;
let clock = now - 2 * 86_400_000;
const today = new Date(now).toISOString().slice(0, 10);
const yesterday = new Date(now - 86_400_000).toISOString().slice(0, 10);
const metric = (kind: 'latency' | 'tokens' | 'cost', quantile: number) =>
  ({ name: `p-${kind}`, kind, quantile }) as unknown as MetricDefinition;

/** A deterministic stream of numbers in [0, 1): the data are the same every run. */
function* numbers(seed: number) {
  let x = seed;
  for (;;) {
    x = (x * 1103515245 + 12345) % 2147483648;
    yield x / 2147483648;
  }
}

async function send(events: object[]) {
  for (let i = 0; i < events.length; i += 500) {
    const res = await h.ingest(acme.secret, {
      method: 'POST',
      url: '/v1/events',
      payload: { events: events.slice(i, i + 500) },
    });
    expect(res.statusCode).toBe(202);
    expect(res.json().rejected).toEqual([]);
  }
}

function calls(prefix: string, users: number, seed: number) {
  const r = numbers(seed);
  const next = () => r.next().value as number;
  const out: object[] = [];
  for (let u = 0; u < users; u++) {
    const variant = u % 2 === 0 ? 'control' : 'treatment';
    const user = `${prefix}-u${u}`;
    out.push({
      ...exposureOf(experimentId, `${prefix}-x${u}`, user),
      timestamp: new Date(now).toISOString(),
      variant,
    });
    // a third of the users never call; the others call 1–4 times, with heavy ties
    const n = u % 3 === 0 ? 0 : 1 + Math.floor(next() * 4);
    for (let k = 0; k < n; k++) {
      const skew = Math.exp(next() * 3);
      out.push({
        event_id: `${prefix}-c${u}-${k}`,
        type: 'model_call',
        experiment_id: experimentId,
        user_id: user,
        variant,
        // a fifth of the calls a day earlier: a two-day window groups a member's days
        timestamp: new Date(next() < 0.2 ? now - 20 * 3_600_000 : now).toISOString(),
        model: 'm',
        latency_ms: Math.round(100 * skew) + (variant === 'treatment' ? 20 : 0),
        ...(next() < 0.9 ? { input_tokens: Math.floor(next() * 50), output_tokens: 10 } : {}),
        ...(next() < 0.7 ? { cost_usd: Math.round(skew * 1000) / 100000 } : {}),
      });
    }
  }
  return out;
}

beforeAll(async () => {
  h = await startHarness({}, { clock: { now: () => new Date(clock) } });
  acme = await h.org('quantile-counts');
  experimentId = await h.experiment(acme.admin, { name: 'quantile-counts' });
  clock = now;
  // created two days ago, as the database's own clock sets it: yesterday is in the window
  await h.ctx.db.execute(
    sql`update experiments set created_at = ${new Date(now - 2 * 86_400_000).toISOString()}::timestamptz
      where id = ${experimentId}::uuid`,
  );
  scope = { experimentId, orgId: acme.orgId, window: { from: today, to: today } };
  await send(calls('a', 400, 7));
  // one stored call the fold sets aside: out of the counts and out of the raw read alike
  await h.ctx.db.execute(
    quarantineStatement(
      { org_id: acme.orgId, event_id: 'a-c1-0', experiment_id: experimentId, type: 'model_call' },
      'set aside by the test',
    ),
  );
  await foldEverything(h);
}, 120_000);
afterAll(() => h.close());

describe('a quantile from the fold-kept counts', () => {
  for (const [kind, q, from] of [
    ['latency', 0.95, 'today'],
    ['latency', 0.95, 'yesterday'],
    ['latency', 0.5, 'today'],
    ['tokens', 0.9, 'yesterday'],
    ['cost', 0.99, 'today'],
  ] as const) {
    it(`equals the quantile over every raw call: ${kind} at ${q}, from ${from} to today`, async () => {
      const window = { from: from === 'today' ? today : yesterday, to: today };
      const at = { ...scope, window };
      const folded = await readFoldedQuantileArms(h.ctx.db, at, metric(kind, q));
      const raw = await readQuantileArms(h.ctx.db, at, metric(kind, q));
      expect(Object.keys(folded.arms).sort()).toEqual(['control', 'treatment']);
      expect(folded).toEqual(raw);
      // the clustered counts are not all zero: the comparison compares something
      expect(folded.arms.control?.clusters.sumY).toBeGreaterThan(0);
    });
  }

  it('leaves out calls still queued for the fold, as every aggregate does', async () => {
    const before = await readFoldedQuantileArms(h.ctx.db, scope, metric('latency', 0.95));
    await send(calls('b', 60, 11));
    expect(await h.ctx.eventLog.depth()).toBeGreaterThan(0);
    expect(await readFoldedQuantileArms(h.ctx.db, scope, metric('latency', 0.95))).toEqual(before);
    await foldEverything(h);
    const after = await readFoldedQuantileArms(h.ctx.db, scope, metric('latency', 0.95));
    expect(after.arms.control?.calls).toBeGreaterThan(before.arms.control?.calls ?? 0);
    expect(after).toEqual(await readQuantileArms(h.ctx.db, scope, metric('latency', 0.95)));
  });

  it("the migration's backfill rebuilds the counts the fold keeps", async () => {
    const kept = () =>
      rows<{ s: string }>(
        h.ctx.db,
        sql`select (select string_agg(concat_ws(' ', kind, day, variant, value, n), ','
            order by kind, day, variant, value) from call_value_counts) || ' | ' ||
          (select string_agg(concat_ws(' ', experiment_id, day, variant, user_id, cost_n), ','
            order by experiment_id, day, variant, user_id) from user_day_stats) as s`,
      );
    const folded = await kept();
    expect(folded[0]?.s).toContain('latency');
    await h.ctx.db.execute(sql`truncate call_value_counts`);
    await h.ctx.db.execute(sql`update user_day_stats set cost_n = 0`);
    const migration = readFileSync(
      new URL('../../../src/db/migrations/0017_call_value_counts.sql', import.meta.url),
      'utf8',
    );
    const backfill = migration.split('--> statement-breakpoint').slice(-2);
    expect(backfill.join('')).toContain('INSERT INTO "call_value_counts"');
    for (const statement of backfill) await h.ctx.db.execute(sql.raw(statement));
    expect(await kept()).toEqual(folded);
  });
});
