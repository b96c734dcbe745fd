import {
  centred,
  histogram,
  metricSummary,
  proportionArm,
  summarize,
  twoProportionZTest,
  welchTest,
} from '@arbiter/stats';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readArrivals } from '../../../src/analysis/reads/arrivals.ts';
import { readArmSamples } from '../../../src/analysis/sql/metric-samples.ts';
import { readSufficientStats } from '../../../src/analysis/sql/sufficient-stats.ts';
import type { MetricDefinition } from '../../../src/schemas/experiment-config.ts';
import { metricDefinition, seeded } from '../../support/analysis-data.ts';
import { type Harness, startHarness } from '../../support/harness.ts';

/**
 * The database's sufficient statistics against the in-memory path they replaced: the same
 * per-user values (computed here from the rows inserted, as the pipeline computed them in Node
 * before) summarised by `summarize` and binned by `histogram` of @arbiter/stats, which the
 * stats package checks against scipy/numpy. Tests and histograms must agree to 1e-9 relative.
 */
let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

const EXPERIMENT = '0b5e4d1c-0000-4000-8000-000000000016';
const ORG = '0b5e4d1c-0000-4000-8000-0000000000ff';
const DAYS = ['2026-11-20', '2026-11-21'] as const;
const scope = { experimentId: EXPERIMENT, orgId: ORG, window: { from: DAYS[0], to: DAYS[1] } };
const ARMS = ['control', 'a', 'b'];

const metric = (name: string, kind: string) => metricDefinition(name, kind);
const METRICS = [
  metric('latency', 'latency'),
  metric('tokens', 'tokens'),
  metric('cost', 'cost'),
  metric('errors', 'error_rate'),
  metric('revenue', 'revenue'),
  metric('score', 'value'),
  metric('checkout', 'conversion'),
];

interface StatsRow {
  day: string;
  variant: string;
  user_id: string;
  exposures: number;
  calls: number;
  errors: number;
  latency_n: number;
  latency_sum: number;
  tokens_n: number;
  tokens_sum: number;
  cost_sum: number;
}
interface BusinessRow {
  day: string;
  metric: string;
  variant: string;
  user_id: string;
  n: number;
  sum: number;
}

/** Users over two days in three arms; some only call, some only have outcomes. */
function generate() {
  const rng = seeded(16);
  const stats: StatsRow[] = [];
  const business: BusinessRow[] = [];
  for (let u = 0; u < 900; u++) {
    const variant = ARMS[u % 3] as string;
    const lift = variant === 'a' ? 30 : 0;
    for (const day of DAYS) {
      if (rng.next() < 0.3) continue;
      const calls = Math.floor(rng.next() * 4);
      const lat = Array.from({ length: calls }, () => rng.normal(500 - lift, 80));
      stats.push({
        day,
        variant,
        user_id: `u${u}`,
        exposures: u % 17 === 0 ? 0 : 1,
        calls,
        errors: calls > 0 && rng.next() < 0.2 ? 1 : 0,
        latency_n: calls,
        latency_sum: lat.reduce((s, v) => s + v, 0),
        tokens_n: calls,
        tokens_sum: calls * Math.round(rng.normal(300, 50)),
        cost_sum: calls * rng.next() * 0.01,
      });
      if (rng.next() < 0.25)
        business.push({
          day,
          metric: 'revenue',
          variant,
          user_id: `u${u}`,
          n: 1,
          sum: rng.normal(40, 15),
        });
      if (rng.next() < 0.3)
        business.push({
          day,
          metric: 'score',
          variant,
          user_id: `u${u}`,
          n: 2,
          sum: rng.normal(7, 2),
        });
      if (rng.next() < 0.1)
        business.push({ day, metric: 'checkout', variant, user_id: `u${u}`, n: 1, sum: 1 });
    }
  }
  // Outcome-only users (never exposed): counted by outcome metrics.
  for (let u = 0; u < 30; u++)
    business.push({
      day: DAYS[1] as string,
      metric: 'revenue',
      variant: ARMS[u % 3] as string,
      user_id: `o${u}`,
      n: 1,
      sum: 12.5 + u,
    });
  return { stats, business };
}

async function insert(stats: StatsRow[], business: BusinessRow[], experiment = EXPERIMENT) {
  await h.ctx.db.execute(sql`insert into user_day_stats (experiment_id, day, variant, user_id,
      exposures, calls, errors, latency_n, latency_sum, tokens_n, tokens_sum, cost_sum)
    select ${experiment}::uuid, day, variant, user_id, exposures, calls, errors, latency_n,
      latency_sum, tokens_n, tokens_sum, cost_sum
    from json_to_recordset(${JSON.stringify(stats)}::json) as x(day date, variant text,
      user_id text, exposures bigint, calls bigint, errors bigint, latency_n bigint,
      latency_sum numeric, tokens_n bigint, tokens_sum numeric, cost_sum numeric)`);
  await h.ctx.db.execute(sql`insert into user_day_business (experiment_id, day, metric, variant,
      user_id, n, sum)
    select ${experiment}::uuid, day, metric, variant, user_id, n, sum
    from json_to_recordset(${JSON.stringify(business)}::json) as x(day date, metric text,
      variant text, user_id text, n bigint, sum numeric)`);
}

/** Per arm, each user's value as the pipeline computed it in Node before (docs/decisions/analysis.md#per-user-values). */
function expectedValues(m: MetricDefinition, stats: StatsRow[], business: BusinessRow[]) {
  const users = new Map<string, StatsRow>();
  for (const r of stats) {
    const key = `${r.variant}\u0000${r.user_id}`;
    const u = users.get(key);
    if (!u) users.set(key, { ...r });
    else
      for (const f of [
        'exposures',
        'calls',
        'errors',
        'latency_n',
        'latency_sum',
        'tokens_n',
        'tokens_sum',
        'cost_sum',
      ] as const)
        u[f] += r[f];
  }
  const out: Record<string, number[]> = Object.fromEntries(ARMS.map((a) => [a, []]));
  const push = (key: string, v: number) => out[key.slice(0, key.indexOf('\u0000'))]?.push(v);
  const statValue: Record<string, (u: StatsRow) => number | null> = {
    latency: (u) => (u.latency_n > 0 ? u.latency_sum / u.latency_n : null),
    tokens: (u) => (u.tokens_n > 0 ? u.tokens_sum / u.tokens_n : null),
    cost: (u) => (u.exposures > 0 || u.calls > 0 ? u.cost_sum : null),
    error_rate: (u) => (u.calls > 0 ? u.errors / u.calls : null),
  };
  const fromStats = statValue[m.kind];
  if (fromStats) {
    for (const [key, u] of users) {
      const v = fromStats(u);
      if (v !== null) push(key, v);
    }
    return out;
  }
  const outcomes = new Map<string, { n: number; sum: number }>();
  for (const b of business.filter((b) => b.metric === m.name)) {
    const key = `${b.variant}\u0000${b.user_id}`;
    const o = outcomes.get(key) ?? { n: 0, sum: 0 };
    outcomes.set(key, { n: o.n + b.n, sum: o.sum + b.sum });
  }
  const value = (o?: { n: number; sum: number }) =>
    m.kind === 'revenue'
      ? (o?.sum ?? 0)
      : m.kind === 'value'
        ? o && o.n > 0
          ? o.sum / o.n
          : null
        : o
          ? 1
          : 0;
  const keys = new Set([
    ...[...users].filter(([, u]) => u.exposures > 0).map(([k]) => k),
    ...outcomes.keys(),
  ]);
  for (const key of keys) {
    const v = value(outcomes.get(key));
    if (v !== null) push(key, v);
  }
  return out;
}

function expectClose(actual: number | null, expected: number | null, label: string) {
  if (expected === null || actual === null) return expect(actual, label).toBe(expected);
  if (expected === 0) return expect(Math.abs(actual), label).toBeLessThan(1e-12);
  expect(
    Math.abs(actual - expected) / Math.abs(expected),
    `${label}: ${actual} vs ${expected}`,
  ).toBeLessThan(1e-9);
}

// Two days read each user's rows grouped; one day (the second: it has the outcome-only users)
// reads each user's one stats row joined to the user's outcomes.
describe.each([
  ['two days', EXPERIMENT, DAYS[0]],
  ['one day', '0b5e4d1c-0000-4000-8000-000000000018', DAYS[1]],
] as const)(
  'sufficient statistics in SQL against the per-user path they replaced, %s',
  (_, id, from) => {
    const scope = { experimentId: id, orgId: ORG, window: { from, to: DAYS[1] } };
    const generated = generate();
    const inWindow = (r: { day: string }) => r.day >= from;
    const data = {
      stats: generated.stats.filter(inWindow),
      business: generated.business.filter(inWindow),
    };
    let read: Awaited<ReturnType<typeof readSufficientStats>>;

    beforeAll(async () => {
      await insert(generated.stats, generated.business, id);
      const groups = ['a', 'b'].map((t) => ({ key: t, variants: ['control', t] }));
      read = await readSufficientStats(h.ctx.db, scope, METRICS, groups);
    });

    it('gives the exposed users per arm as the arrivals of a window within their span', async () => {
      const windowEnd = new Date(`${DAYS[1]}T12:00:00Z`);
      const windowDays = from === DAYS[0] ? 2 : 1;
      const span = { window: scope.window, windowDays, windowEnd };
      const queried = await readArrivals(h.ctx.db, scope, span);
      const fromArms = await readArrivals(h.ctx.db, scope, { ...span, exposed: read.arms });
      expect(fromArms).toEqual(queried);
      expect(Object.keys(queried.newUsers).sort()).toEqual([...ARMS].sort());
    });

    it('counts exposed users and exposures per arm', () => {
      for (const arm of ARMS) {
        const rows = data.stats.filter((r) => r.variant === arm);
        const exposed = new Set(rows.filter((r) => r.exposures > 0).map((r) => r.user_id));
        expect(read.arms[arm]).toEqual({
          users: exposed.size,
          events: rows.reduce((s, r) => s + r.exposures, 0),
        });
      }
    });

    it.each(METRICS.map((m) => [m.name, m] as const))(
      '%s: the tests agree to 1e-9 relative',
      (_, m) => {
        const values = expectedValues(m, data.stats, data.business);
        const sqlArms = read.metrics[m.name]?.arms ?? {};
        for (const t of ['a', 'b']) {
          const sc = metricSummary(sqlArms.control!);
          const st = metricSummary(sqlArms[t]!);
          expect(sc.n).toBe(values.control?.length);
          expect(st.n).toBe(values[t]?.length);
          const got =
            m.kind === 'conversion'
              ? twoProportionZTest(proportionArm(sc), proportionArm(st))
              : welchTest(sc, st);
          const want =
            m.kind === 'conversion'
              ? twoProportionZTest(
                  proportionArm(summarize(values.control!)),
                  proportionArm(summarize(values[t]!)),
                )
              : welchTest(summarize(values.control!), summarize(values[t]!));
          expect(got.ok).toBe(true);
          for (const f of ['statistic', 'p_value', 'effect', 'ci_low', 'ci_high', 'lift'] as const)
            expectClose(got[f], want[f], `${m.name}::${t} ${f}`);
          expectClose(
            centred(sc).mean,
            summarize(values.control!).shift ?? 0,
            `${m.name} control mean`,
          );
        }
      },
    );

    it.each(METRICS.map((m) => [m.name, m] as const))(
      '%s: the histograms match numpy-style binning',
      (_, m) => {
        const values = expectedValues(m, data.stats, data.business);
        for (const t of ['a', 'b']) {
          const want = histogram({ control: values.control!, [t]: values[t]! });
          const got = read.metrics[m.name]?.histograms[t];
          expect(got?.counts).toEqual(want.counts);
          expect(got?.bin_edges.length).toBe(21);
          got?.bin_edges.forEach((e, i) => {
            expectClose(e, want.bin_edges[i] as number, `edge ${i}`);
          });
        }
      },
    );

    it('samples at most the cap per arm, the same users on every read, and all users under it', async () => {
      const m = METRICS[0] as MetricDefinition;
      const values = expectedValues(m, data.stats, data.business);
      const all = await readArmSamples(h.ctx.db, { scope, metric: m, cap: 10_000 });
      expect(all.capUsed).toBe(false);
      for (const arm of ARMS) {
        const got = [...(all.values[arm] ?? [])].sort((x, y) => x - y);
        const want = [...(values[arm] ?? [])].sort((x, y) => x - y);
        expect(got).toHaveLength(want.length);
        got.forEach((v, i) => {
          expectClose(v, want[i] as number, `${arm} value ${i}`);
        });
      }
      const capped = await readArmSamples(h.ctx.db, { scope, metric: m, cap: 50 });
      const again = await readArmSamples(h.ctx.db, { scope, metric: m, cap: 50 });
      expect(capped.capUsed).toBe(true);
      for (const arm of ARMS) {
        expect(capped.values[arm]).toHaveLength(50);
        expect(again.values[arm]).toEqual(capped.values[arm]);
        for (const v of capped.values[arm] ?? []) expect(all.values[arm]).toContain(v);
      }
    });
  },
);

describe('a large mean with a tiny variance (1e9 ± 0.01)', () => {
  const EXP = '0b5e4d1c-0000-4000-8000-000000000017';
  const hard = metric('hard', 'value');
  const rng = seeded(1e9);
  const arms: Record<string, number[]> = { control: [], treatment: [] };
  const business: BusinessRow[] = [];
  for (let u = 0; u < 4000; u++) {
    const variant = u % 2 === 0 ? 'control' : 'treatment';
    const v = 1e9 + rng.normal(variant === 'treatment' ? 4e-4 : 0, 0.01);
    arms[variant]?.push(v);
    business.push({
      day: DAYS[0] as string,
      metric: 'hard',
      variant,
      user_id: `h${u}`,
      n: 1,
      sum: v,
    });
  }

  /** The exact sample variance: values at 1e9 are multiples of 2^-23, so scaled they are integers. */
  function exactVariance(values: number[]): number {
    const scaled = values.map((v) => BigInt(v * 2 ** 23));
    const n = BigInt(values.length);
    const sum = scaled.reduce((s, v) => s + v, 0n);
    const ss = scaled.reduce((s, v) => s + v * v, 0n);
    const numerator = n * ss - sum * sum; // n² · M2, exact
    return Number(numerator) / Number(n * (n - 1n)) / 2 ** 46;
  }

  it('keeps every digit of the variance and of the 4e-4 difference, where raw sums lose them', async () => {
    await insert([], business, EXP);
    // The run's two-day window groups each user's rows; a one-day window joins them.
    for (const window of [scope.window, { from: DAYS[0], to: DAYS[0] }])
      await expectEveryDigit(window);
  });

  async function expectEveryDigit(window: { from: string; to: string }) {
    const read = await readSufficientStats(
      h.ctx.db,
      { ...scope, experimentId: EXP, window },
      [hard],
      [{ key: 'treatment', variants: ['control', 'treatment'] }],
    );
    for (const arm of ['control', 'treatment']) {
      const s = metricSummary(read.metrics.hard?.arms[arm] as never);
      const values = arms[arm] as number[];
      const c = centred(s);
      expectClose(c.m2 / (c.n - 1), exactVariance(values), `${arm} variance`);
      // The one-pass raw form the statement avoids is off by orders of magnitude here.
      const raw =
        values.reduce((a, v) => a + v * v, 0) -
        values.reduce((a, v) => a + v, 0) ** 2 / values.length;
      expect(Math.abs(raw / (values.length - 1) - exactVariance(values))).toBeGreaterThan(
        1e3 * exactVariance(values),
      );
    }
    const sc = metricSummary(read.metrics.hard?.arms.control as never);
    const st = metricSummary(read.metrics.hard?.arms.treatment as never);
    const want = welchTest(
      summarize(arms.control as number[]),
      summarize(arms.treatment as number[]),
    );
    const got = welchTest(sc, st);
    for (const f of ['statistic', 'p_value', 'effect', 'ci_low', 'ci_high'] as const)
      expectClose(got[f], want[f], `hard ${f}`);
  }
});

/**
 * The sums come from one pass around one shift per metric, the median of the first users'
 * values, unless that shift sits far from some arm's mean against its spread: then a second pass
 * around each arm's own mean runs, and the digits are kept either way.
 */
describe('one pass around a shared shift, and a second pass where it would lose digits', () => {
  const far = metric('far', 'value');
  const groups = [{ key: 'treatment', variants: ['control', 'treatment'] }];

  /** 4,000 users, alternating arms, each with one outcome of value(arm). */
  async function outcomes(experiment: string, value: (arm: string) => number) {
    const arms: Record<string, number[]> = { control: [], treatment: [] };
    const business: BusinessRow[] = [];
    for (let u = 0; u < 4000; u++) {
      const variant = u % 2 === 0 ? 'control' : 'treatment';
      const v = value(variant);
      arms[variant]?.push(v);
      business.push({ day: DAYS[0], metric: 'far', variant, user_id: `f${u}`, n: 1, sum: v });
    }
    await insert([], business, experiment);
    const window = { from: DAYS[0], to: DAYS[0] };
    const read = await readSufficientStats(
      h.ctx.db,
      { ...scope, experimentId: experiment, window },
      [far],
      groups,
    );
    return { arms, read: read.metrics.far?.arms ?? {} };
  }

  function expectEveryMoment(arms: Record<string, number[]>, read: Record<string, unknown>) {
    for (const arm of ['control', 'treatment']) {
      const got = centred(metricSummary(read[arm] as never));
      const want = centred(summarize(arms[arm] as number[]));
      expect(got.n).toBe(want.n);
      expectClose(got.mean, want.mean, `${arm} mean`);
      expectClose(got.m2, want.m2, `${arm} m2`);
    }
  }

  it('sums every arm around the same shift when it sits near their means', async () => {
    const rng = seeded(31);
    const { arms, read } = await outcomes('0b5e4d1c-0000-4000-8000-000000000031', (arm) =>
      rng.normal(arm === 'treatment' ? 101 : 100, 10),
    );
    const shifts = ['control', 'treatment'].map((a) => (read[a] as { shiftY: number }).shiftY);
    // One shift for both arms, and a value of the data (a median of users' values).
    expect(shifts[0]).toBe(shifts[1]);
    expect([...(arms.control ?? []), ...(arms.treatment ?? [])]).toContain(shifts[0]);
    expectEveryMoment(arms, read);
  });

  it('runs the second pass around each arm’s mean when one arm sits a million spreads away', async () => {
    const rng = seeded(32);
    const { arms, read } = await outcomes('0b5e4d1c-0000-4000-8000-000000000032', (arm) =>
      rng.normal(arm === 'treatment' ? 1e6 : 1, 0.5),
    );
    for (const arm of ['control', 'treatment']) {
      const values = arms[arm] as number[];
      const mean = values.reduce((s, v) => s + v, 0) / values.length;
      expectClose((read[arm] as { shiftY: number }).shiftY, mean, `${arm} shift`);
    }
    // Around a shift near 1, the treatment's sum of squares would be ~4e15 for a spread of
    // 0.25 a user: its variance would keep no digit. The second pass keeps all of them.
    expectEveryMoment(arms, read);
  });
});

/**
 * A 0/1 metric's histograms and moments come from each arm's n and users at 1, not from a pass
 * over the users: numpy's bins of 0 and 1 over the group's range, the degenerate ranges
 * included, and the sums around the shared shift (0, or 1 where most users converted), which
 * keep every digit, so no second pass runs.
 */
describe('a 0/1 metric binned and summed from its counts', () => {
  const converted = metric('converted', 'conversion');
  it.each([
    ['nobody converted', '0b5e4d1c-0000-4000-8000-000000000041', () => false],
    ['everybody converted', '0b5e4d1c-0000-4000-8000-000000000042', () => true],
    ['some converted', '0b5e4d1c-0000-4000-8000-000000000043', (u: number) => u % 7 === 0],
    ['most converted', '0b5e4d1c-0000-4000-8000-000000000044', (u: number) => u % 7 !== 0],
  ] as const)('%s: the bins and moments numpy gives', async (_, experiment, converts) => {
    const stats: StatsRow[] = [];
    const business: BusinessRow[] = [];
    const values: Record<string, number[]> = { control: [], treatment: [] };
    for (let u = 0; u < 300; u++) {
      const variant = u % 2 === 0 ? 'control' : 'treatment';
      const row = { day: DAYS[0], variant, user_id: `c${u}`, exposures: 1, calls: 0, errors: 0 };
      stats.push({ ...row, latency_n: 0, latency_sum: 0, tokens_n: 0, tokens_sum: 0, cost_sum: 0 });
      const yes = converts(u);
      if (yes)
        business.push({
          day: DAYS[0],
          metric: 'converted',
          variant,
          user_id: `c${u}`,
          n: 1,
          sum: 1,
        });
      values[variant]?.push(yes ? 1 : 0);
    }
    await insert(stats, business, experiment);
    const read = await readSufficientStats(
      h.ctx.db,
      { ...scope, experimentId: experiment, window: { from: DAYS[0], to: DAYS[0] } },
      [converted],
      [{ key: 'treatment', variants: ['control', 'treatment'] }],
    );
    const want = histogram({ control: values.control ?? [], treatment: values.treatment ?? [] });
    const got = read.metrics.converted?.histograms.treatment;
    expect(got?.counts).toEqual(want.counts);
    expect(got?.bin_edges).toEqual(want.bin_edges);

    const pooled = [...(values.control ?? []), ...(values.treatment ?? [])];
    const majority = pooled.filter((v) => v === 1).length * 2 > pooled.length ? 1 : 0;
    for (const arm of ['control', 'treatment']) {
      const summary = read.metrics.converted?.arms[arm];
      expect(summary?.shiftY).toBe(majority);
      const gotMoments = centred(metricSummary(summary as never));
      const wantMoments = centred(summarize(values[arm] as number[]));
      expect(gotMoments.n).toBe(wantMoments.n);
      expectClose(gotMoments.mean, wantMoments.mean, `${arm} mean`);
      expectClose(gotMoments.m2, wantMoments.m2, `${arm} m2`);
    }
  });
});
