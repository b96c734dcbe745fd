import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Results } from '../../../src/analysis/results/results-schema.ts';
import { auditLog, callValueCounts, events, userDayStats } from '../../../src/db/schema.ts';
import { type RepriceOptions, repriceCalls } from '../../../src/ingest/reprice.ts';
import { runNightlyFor, today } from '../../support/analysis-data.ts';
import { type Harness, startHarness } from '../../support/harness.ts';

/**
 * `arbiter reprice` against the oracle it promises: a database whose calls were priced under
 * the built-in table, then an org override effective from before them, then re-priced, holds
 * the same costs, the same daily aggregates and gives the same results as a database that had
 * the override before the calls arrived. Some calls are folded before the re-price and some
 * may not be; a sent cost is never touched; a call no row priced is priced once a row exists.
 */
const TODAY = today();
const YESTERDAY = new Date(Date.parse(`${TODAY}T00:00:00Z`) - 86_400_000)
  .toISOString()
  .slice(0, 10);
const base = { category: 'primary', metric_version: 1, shared_org_wide: false } as const;
const METRICS = [
  { ...base, name: 'cost', kind: 'cost', method_default: 'welch_t' },
  { ...base, name: 'p90-cost', kind: 'cost', method_default: 'welch_t', quantile: 0.9 },
  {
    ...base,
    name: 'cost-per-call',
    kind: 'ratio',
    category: 'secondary',
    method_default: 'welch_t',
    direction: 'decrease',
    numerator: { of: 'cost' },
    denominator: { of: 'calls' },
  },
];
const OVERRIDES = [
  {
    pattern: 'gpt-4o',
    effective_from: TODAY,
    input_per_million: 1.75,
    output_per_million: 7.5,
    cached_input_per_million: 0.3,
    reasoning_per_million: 9.25,
  },
  {
    pattern: 'acme-house-model',
    effective_from: TODAY,
    input_per_million: 0.4,
    output_per_million: 1.3,
  },
];

interface Side {
  h: Harness;
  org: Awaited<ReturnType<Harness['org']>>;
  experimentId: string;
}

async function side(name: string): Promise<Side> {
  // A few dozen users are enough for a computed run here: the test compares two runs.
  const h = await startHarness({ ARBITER_MIN_EVENTS_PER_ARM: '20' });
  const org = await h.org(name);
  const experimentId = await h.experiment(org.admin, { name: 'repriced', metrics: METRICS });
  return { h, org, experimentId };
}

async function putOverrides(s: Side) {
  for (const payload of OVERRIDES) {
    const res = await s.h.call(s.org.admin, { method: 'PUT', url: '/v1/model-prices', payload });
    expect(res.statusCode, res.body).toBe(200);
  }
}

/** Exposures and model calls of 60 users, the same on both sides but for the experiment id. */
function traffic(s: Side, part: 0 | 1): object[] {
  const now = new Date().toISOString();
  const out: object[] = [];
  for (let u = part * 30; u < part * 30 + 30; u++) {
    const common = {
      experiment_id: s.experimentId,
      user_id: `u${u}`,
      variant: u % 2 === 0 ? 'control' : 'treatment',
    };
    out.push({ ...common, event_id: `x${u}`, type: 'exposure', timestamp: now });
    for (let k = 0; k < 1 + (u % 3); k++) {
      const tokens = { input_tokens: 900 + 37 * u + 11 * k, output_tokens: 150 + 13 * u + 7 * k };
      const kind = (u + k) % 6;
      const fields =
        kind === 0
          ? { model: 'acme-house-model', ...tokens }
          : kind === 1
            ? { model: 'gpt-4o', ...tokens, cost_usd: 0.0123 + u / 1e5 }
            : kind === 2
              ? {
                  model: 'gpt-4o-2024-08-06',
                  ...tokens,
                  cached_input_tokens: 300,
                  reasoning_tokens: 90,
                }
              : kind === 3
                ? { model: 'claude-3-5-haiku-20241022', ...tokens }
                : { model: 'gpt-4o', ...tokens };
      out.push({
        ...common,
        event_id: `m${u}-${k}`,
        type: 'model_call',
        timestamp: now,
        latency_ms: 200 + u,
        ...fields,
      });
    }
  }
  return out;
}

async function send(s: Side, list: object[]) {
  const res = await s.h.ingest(s.org.secret, {
    method: 'POST',
    url: '/v1/events',
    payload: { events: list },
  });
  expect(res.statusCode, res.body).toBe(202);
  expect(res.json().rejected).toEqual([]);
}

const reprice = (s: Side, options: Partial<RepriceOptions> = {}) =>
  repriceCalls(
    s.h.ctx.db,
    s.h.ctx.shards.all.map((d) => d.db),
    { org: 'reprice-a', from: null, to: null, dryRun: false, ...options },
  );

/** What each database holds, without the experiment id that differs between them. */
async function held(s: Side) {
  const dbs = s.h.ctx.shards.all.map((d) => d.db);
  const calls = (
    await Promise.all(
      dbs.map((db) =>
        db
          .select({ id: events.eventId, cost: events.costUsd, by: events.pricedBy })
          .from(events)
          .where(eq(events.type, 'model_call')),
      ),
    )
  )
    .flat()
    .sort((a, b) => a.id.localeCompare(b.id));
  const stats = (
    await Promise.all(
      dbs.map((db) =>
        db
          .select({
            user: userDayStats.userId,
            day: userDayStats.day,
            calls: userDayStats.calls,
            sum: userDayStats.costSum,
            n: userDayStats.costN,
          })
          .from(userDayStats),
      ),
    )
  )
    .flat()
    .map((r) => ({ ...r, sum: Number(r.sum) }))
    .sort((a, b) => a.user.localeCompare(b.user));
  // Shards split a value's count by user, and the two databases' orgs put users apart: the
  // counts compare merged by addition, as the analysis merges them.
  const merged = new Map<string, number>();
  for (const db of dbs)
    for (const r of await db
      .select({
        kind: callValueCounts.kind,
        day: callValueCounts.day,
        arm: callValueCounts.variant,
        value: callValueCounts.value,
        n: callValueCounts.n,
      })
      .from(callValueCounts)) {
      const key = JSON.stringify([r.kind, r.day, r.arm, r.value]);
      merged.set(key, (merged.get(key) ?? 0) + Number(r.n));
    }
  const counts = [...merged].sort(([a], [b]) => a.localeCompare(b));
  return { calls, stats, counts };
}

async function results(s: Side): Promise<Results> {
  const summary = await runNightlyFor(s.h, TODAY);
  expect(summary.experiments.map((e: { status: string }) => e.status)).toEqual(['computed']);
  const res = await s.h.call(s.org.admin, {
    method: 'GET',
    url: `/v1/experiments/${s.experimentId}/results`,
  });
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as Results;
}

let repriced: Side;
let fresh: Side;
let before: Awaited<ReturnType<typeof held>>;

beforeAll(async () => {
  repriced = await side('reprice-a');
  fresh = await side('reprice-a');
  // The oracle: the override is in place before any call arrives.
  await putOverrides(fresh);
  await send(fresh, [...traffic(fresh, 0), ...traffic(fresh, 1)]);
  await fresh.h.ctx.worker.foldAll();
  // Priced by the built-in table, the first half folded; the override comes afterwards.
  await send(repriced, traffic(repriced, 0));
  await repriced.h.ctx.worker.foldAll();
  await send(repriced, traffic(repriced, 1));
  await putOverrides(repriced);
  before = await held(repriced);
}, 300_000);
afterAll(async () => {
  await repriced?.h.close();
  await fresh?.h.close();
});

describe('arbiter reprice', () => {
  it('prices differently before the re-price, so the comparison below can fail', async () => {
    const oracle = await held(fresh);
    expect(before.calls.length).toBe(oracle.calls.length);
    expect(before.calls).not.toEqual(oracle.calls);
    expect(before.calls.filter((c) => c.by === null && c.cost === null).length).toBeGreaterThan(0);
  });

  it('outside its window, and in a dry run, changes nothing', async () => {
    const outside = await reprice(repriced, { to: YESTERDAY });
    expect(outside).toMatchObject({ examined: 0, repriced: 0 });
    const dry = await reprice(repriced, { dryRun: true, from: TODAY, to: TODAY });
    expect(dry.repriced).toBeGreaterThan(0);
    expect(dry.examined).toBeGreaterThan(dry.repriced - 1);
    expect(await held(repriced)).toEqual(before);
  });

  it('gives the costs, rows and daily aggregates of calls priced so from the start', async () => {
    const report = await reprice(repriced, { batch: 7 });
    const oracle = await held(fresh);
    expect(report.repriced).toBe(
      oracle.calls.filter(
        (c, i) => c.cost !== before.calls[i]?.cost || c.by !== before.calls[i]?.by,
      ).length,
    );
    await repriced.h.ctx.worker.foldAll();
    const after = await held(repriced);
    expect(after.calls).toEqual(oracle.calls);
    expect(after.calls.filter((c) => c.by === null).every((c) => c.cost !== null)).toBe(true);
    expect(after.calls.some((c) => c.by === `org:acme-house-model@${TODAY}`)).toBe(true);
    expect(after.stats).toEqual(oracle.stats);
    expect(after.counts).toEqual(oracle.counts);
    const again = await reprice(repriced);
    expect(again.repriced).toBe(0);
  });

  it('keeps every cost the application sent', async () => {
    const after = await held(repriced);
    const sent = before.calls.filter((c) => c.by === null && c.cost !== null);
    expect(sent.length).toBeGreaterThan(0);
    for (const call of sent) expect(after.calls.find((c) => c.id === call.id)).toEqual(call);
  });

  it('gives the results of a fresh fold', async () => {
    const [got, want] = [await results(repriced), await results(fresh)];
    for (const key of ['cost::treatment', 'p90-cost::treatment', 'cost-per-call::treatment']) {
      const a = got.results[key] as unknown as Record<string, unknown>;
      const b = want.results[key] as unknown as Record<string, unknown>;
      expect(a, key).toBeDefined();
      const means = (r: Record<string, unknown>) => r.mean_per_arm as Record<string, number>;
      const pairs: Array<[string, number, number]> = [
        ...['effect', 'p_value', 'ci_low', 'ci_high'].map(
          (f) => [f, a[f], b[f]] as [string, number, number],
        ),
        ...['control', 'treatment'].map(
          (arm) => [arm, means(a)[arm], means(b)[arm]] as [string, number, number],
        ),
      ];
      for (const [field, x, y] of pairs) {
        expect(Number.isFinite(y), `${key} ${field}`).toBe(true);
        expect(Math.abs(x - y), `${key} ${field}`).toBeLessThanOrEqual(
          1e-12 * Math.max(1, Math.abs(y)),
        );
      }
    }
  });

  it('is audited once per org and run, a dry run not at all', async () => {
    const trail = await repriced.h.ctx.db
      .select()
      .from(auditLog)
      .where(eq(auditLog.action, 'model_calls.repriced'));
    expect(trail.map((t) => t.targetId)).toEqual([`*..${YESTERDAY}`, '*..*', '*..*']);
    expect(trail[1]?.details).toMatchObject({ from: null, to: null, unpriced: 0 });
  });

  it('refuses an org that does not exist, changing nothing', async () => {
    await expect(reprice(repriced, { org: 'no-such-org' })).rejects.toThrow('no org no-such-org');
  });
});
