import { OTHER_SLICE } from '@arbiter/contract';
import { covariateMoments } from '@arbiter/stats';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readBreakdowns } from '../../../src/analysis/compute/breakdowns.ts';
import { computeRun, type RunInputs } from '../../../src/analysis/compute/compute-run.ts';
import { readRunInputs, valueScope } from '../../../src/analysis/reads/read-run-inputs.ts';
import { runNightly } from '../../../src/analysis/run/nightly.ts';
import { readShardedQuantileArms } from '../../../src/analysis/shards/sharded-quantiles.ts';
import { readShardedSamples } from '../../../src/analysis/shards/sharded-samples.ts';
import { readArmSamples } from '../../../src/analysis/sql/metric-samples.ts';
import { readFoldedQuantileArms } from '../../../src/analysis/sql/quantile-counts-sql.ts';
import { readQuantileArms } from '../../../src/analysis/sql/quantile-sql.ts';
import { callValueOrNull, QUANTILE_KINDS } from '../../../src/db/call-values.ts';
import type { Database, DatabaseHandle } from '../../../src/db/connect.ts';
import { rows } from '../../../src/db/connect.ts';
import { type ShardSet, shardSetOf } from '../../../src/db/shards/shard-set.ts';
import { loadExperiment } from '../../../src/domain/experiments/service.ts';
import type { MetricDefinition } from '../../../src/schemas/experiment-config.ts';
import { importAll, ingestAll, metricDefinition, seeded } from '../../support/analysis-data.ts';
import {
  freshDatabase,
  freshDatabaseOn,
  startOwnCluster,
  TEST_DB,
} from '../../support/database.ts';
import { type Harness, startHarness } from '../../support/harness.ts';

/**
 * The same generated traffic analysed on one database and on three shards, each holding only
 * the aggregate rows of the users `shardOf(org, user, 3)` places on it (the union of the
 * shards' tables is the single database's), under the equality rules of docs/decisions/scale-out.md#analysis-over-several-shards:
 * counts, SRM, histogram edges and bins and the rank tests' samples exactly; moments and what
 * follows from them within 1e-12 relative. On the PostgreSQL pass the shards are three
 * PostgreSQL servers (the test server and two clusters of this file's own); on the PGlite
 * pass, three embedded databases.
 */
let h: Harness;
let org: Awaited<ReturnType<Harness['org']>>;
let handles: Array<DatabaseHandle & { url: string | null }> = [];
let shards: ShardSet;
let clusters: Array<ReturnType<typeof startOwnCluster>> = [];
const ids: Record<string, string> = {};

const DAY_MS = 86_400_000;
const daysAgo = (n: number) => new Date(Date.now() - n * DAY_MS).toISOString();
const metric = (name: string, kind: string, method: string, extra: object = {}) =>
  metricDefinition(name, kind, { method_default: method, ...extra } as Partial<MetricDefinition>);
/** More segments than a breakdown shows, of different sizes: the smallest go to (other). */
const SEGMENTS = 26;
const DIMENSIONS = ['model', 'metadata.segment'];
const THREE_ARMS = {
  allocation: [
    { variant: 'control', weight: 34 },
    { variant: 'a', weight: 33 },
    { variant: 'b', weight: 33 },
  ],
  variants: [
    { key: 'control', prompt: 'p', variables: {} },
    { key: 'a', prompt: 'q', variables: {} },
    { key: 'b', prompt: 'r', variables: {} },
  ],
};

beforeAll(async () => {
  h = await startHarness({ ARBITER_PLATFORM_OWNER_EMAILS: 'boss@arbiter.test' });
  org = await h.org('shard-org');
  ids.mixed = await h.experiment(org.admin, {
    name: 'mixed',
    ...THREE_ARMS,
    metrics: [
      // Capped both ways: the shards' tails give percentile_cont's bounds (covariate too).
      metric('revenue', 'revenue', 'welch_t', {
        cuped: { covariate_days: 14 },
        cap: { percentile: 0.99, lower_percentile: 0.01 },
      }),
      metric('checkout', 'conversion', 'two_proportion_z'),
      metric('score', 'value', 'mann_whitney'),
      metric('rating', 'value', 'permutation'),
    ],
  });
  ids.plain = await h.experiment(org.admin, {
    name: 'plain',
    metrics: [metric('revenue', 'revenue', 'welch_t'), metric('big', 'value', 'welch_t')],
  });
  ids.orgwide = await h.experiment(org.admin, {
    name: 'orgwide',
    metrics: [
      metric('revenue', 'revenue', 'welch_t', {
        shared_org_wide: true,
        cuped: { covariate_days: 14 },
      }),
    ],
  });
  ids.quant = await h.experiment(org.admin, {
    name: 'quant',
    ...THREE_ARMS,
    metrics: [
      metric('p90-latency', 'latency', 'welch_t', { quantile: 0.9 }),
      metric('median-tokens', 'tokens', 'welch_t', { quantile: 0.5 }),
      metric('latency', 'latency', 'welch_t'),
      // Whole milliseconds: a slice's per-user values sum exactly in any row order.
      metric('latency-ranks', 'latency', 'mann_whitney'),
    ],
    dimensions: DIMENSIONS,
  });
  const { history, live } = traffic(1500);
  await importAll(h, org.secret, history);
  await ingestAll(h, org.secret, live);
  // On PostgreSQL the three shards are three servers: the test server and two of their own.
  if (TEST_DB === 'postgres') clusters = [startOwnCluster(), startOwnCluster()];
  handles = await Promise.all([
    freshDatabase(),
    ...[0, 1].map((i) => {
      const cluster = clusters[i];
      return cluster ? freshDatabaseOn(cluster.url) : freshDatabase();
    }),
  ]);
  shards = shardSetOf(handles);
  await splitIntoShards();
}, 600_000);
afterAll(async () => {
  await Promise.all(handles.map((s) => s.close()));
  for (const cluster of clusters) cluster.stop();
  await h?.close();
});

/** Exposures and outcomes of `users` users, with pre-period revenue for CUPED. */
function traffic(users: number) {
  const rng = seeded(25);
  const history: object[] = [];
  const live: object[] = [];
  const now = new Date().toISOString();
  const event = (id: string, experiment: string, user: string, extra: object = {}) => ({
    event_id: id,
    type: 'business_event',
    experiment_id: experiment,
    user_id: user,
    timestamp: now,
    ...extra,
  });
  for (let u = 0; u < users; u++) {
    const user = `s${u}`;
    const habit = Math.max(0, rng.normal(50, 20));
    if (u % 5 !== 0)
      history.push(
        event(`pre-${u}`, ids.mixed as string, user, {
          timestamp: daysAgo(4),
          business_metric: 'revenue',
          value: habit,
        }),
      );
    for (const experiment of [ids.mixed, ids.plain] as string[]) {
      live.push({ ...event(`x-${experiment}-${u}`, experiment, user), type: 'exposure' });
      const outcome = (name: string, value: number) =>
        live.push(
          event(`${name}-${experiment}-${u}`, experiment, user, { business_metric: name, value }),
        );
      outcome('revenue', habit + rng.normal(0, 6));
      if (rng.next() < 0.2) outcome('checkout', 1);
      if (rng.next() < 0.7) outcome('score', Math.round(rng.normal(7, 2)));
      if (rng.next() < 0.6) outcome('rating', rng.normal(3, 1));
      // A large mean against a small spread: what the shifted sums exist for.
      outcome('big', 1e9 + rng.normal(0, 0.01));
    }
    live.push({ ...event(`x-orgwide-${u}`, ids.orgwide as string, user), type: 'exposure' });
    live.push(
      event(`revenue-orgwide-${u}`, ids.orgwide as string, user, {
        business_metric: 'revenue',
        value: habit + rng.normal(2, 6),
      }),
    );
    live.push(...modelCalls(rng, u));
  }
  return { history, live };
}

/** A user's exposure and 1 to 4 model calls in `quant`, by model and segment (ties included). */
function modelCalls(rng: ReturnType<typeof seeded>, u: number): object[] {
  const segment = `seg-${String(Math.floor(SEGMENTS * (u / 1500) ** 1.5)).padStart(2, '0')}`;
  const common = {
    experiment_id: ids.quant as string,
    user_id: `s${u}`,
    timestamp: new Date().toISOString(),
  };
  const out: object[] = [
    { ...common, event_id: `qx-${u}`, type: 'exposure', metadata: { segment } },
  ];
  const calls = 1 + Math.floor(rng.next() * 4);
  for (let c = 0; c < calls; c++) {
    const r = rng.next();
    const model = r < 0.6 ? 'gpt-a' : r < 0.9 ? 'gpt-b' : 'claude-c';
    const latency = Math.round(Math.exp(rng.normal(6, 0.6)));
    out.push({
      ...common,
      event_id: `qm-${u}-${c}`,
      type: 'model_call',
      model,
      latency_ms: latency,
      // Few distinct token counts: many ties at every order statistic.
      input_tokens: 100 * Math.floor(rng.next() * 8),
      output_tokens: 50,
      cost_usd: Math.round(rng.next() * 2000) / 1e6,
      metadata: { segment: rng.next() < 0.1 ? `seg-${Math.floor(rng.next() * 3)}` : segment },
    });
  }
  return out;
}

/** Each event-data table's rows copied to the shard `shardOf` gives their user, exactly. */
async function splitIntoShards() {
  const users = await rows<{ user_id: string }>(
    h.ctx.db,
    sql`select distinct user_id from user_day_stats union select distinct user_id from user_day_business`,
  );
  const byShard = handles.map(() => [] as string[]);
  for (const { user_id } of users) byShard[shards.positionOf(org.orgId, user_id)]?.push(user_id);
  for (const table of ['user_day_stats', 'user_day_business', 'events']) {
    const name = sql.raw(table);
    for (const [i, shard] of handles.entries()) {
      const scope = sql`user_id in (select value from json_array_elements_text(${JSON.stringify(byShard[i])}::json))`;
      // As text: the numeric sums travel exactly, not through a double.
      const [found] = await rows<{ t: string }>(
        h.ctx.db,
        sql`select coalesce(json_agg(r), '[]')::text as t from ${name} r where ${scope}`,
      );
      await shard.db.execute(
        sql`insert into ${name} select * from json_populate_recordset(null::${name}, ${found?.t ?? '[]'}::json)`,
      );
    }
  }
  for (const shard of handles) {
    // The copied events are folded already (their aggregates are copied): not queued again.
    await shard.db.execute(sql`delete from ingest_pending`);
    // The fold's value counts have no user: each shard's are those its own fold would write.
    await shard.db.execute(sql`insert into call_value_counts (experiment_id, kind, day, variant, value, n)
      select e.experiment_id, k.kind, (e.occurred_at at time zone 'UTC')::date, e.variant, k.value,
        count(*)
      from events e cross join lateral (values ${sql.join(
        QUANTILE_KINDS.map((kind) => sql`(${kind}, (${callValueOrNull(kind)})::float8)`),
        sql`, `,
      )}) as k(kind, value)
      where e.type = 'model_call' and e.variant is not null and k.value is not null
      group by 1, 2, 3, 4, 5`);
  }
}

/**
 * A table's rows as sorted JSON texts, of one database or of every shard together; the value
 * counts (keyed by value, not user) with each shard's n added up.
 */
async function tableRows(dbs: readonly { db: Database }[], table: string): Promise<string[]> {
  const found = await Promise.all(
    dbs.map((d) =>
      rows<{ r: string }>(d.db, sql`select row_to_json(t)::text as r from ${sql.raw(table)} t`),
    ),
  );
  const texts = found.flat().map((x) => x.r);
  if (table !== 'call_value_counts') return texts.sort();
  const added = new Map<string, number>();
  for (const text of texts) {
    const { n, ...key } = JSON.parse(text) as { n: number };
    const k = JSON.stringify(key);
    added.set(k, (added.get(k) ?? 0) + Number(n));
  }
  return [...added].map(([k, n]) => `${k} ${n}`).sort();
}

async function bothRuns(name: string, kind: 'nightly' | 'manual') {
  const found = await loadExperiment(h.ctx.db, org.orgId, ids[name] as string);
  const windowEnd = new Date(Date.now() + DAY_MS);
  const request = { kind, label: `${name}-${kind}`, windowEnd, foldedThrough: new Date() };
  const single = await readRunInputs(h.ctx, found, request);
  const sharded = await readRunInputs({ ...h.ctx, shards }, found, request);
  return { found, single, sharded };
}

/** Every number within 1e-12 relative (of the larger of the two), everything else equal. */
function expectClose(a: unknown, b: unknown, path = '$'): void {
  if (typeof a === 'number' && typeof b === 'number') {
    if (Object.is(a, b)) return;
    const scale = Math.max(Math.abs(a), Math.abs(b));
    expect(Math.abs(a - b), `${path}: ${a} vs ${b}`).toBeLessThanOrEqual(1e-12 * scale);
    return;
  }
  if (
    a === null ||
    b === null ||
    typeof a !== 'object' ||
    typeof b !== 'object' ||
    a instanceof Date
  ) {
    expect(b, path).toEqual(a);
    return;
  }
  expect(Object.keys(b as object).sort(), path).toEqual(Object.keys(a as object).sort());
  for (const [k, v] of Object.entries(a as object))
    expectClose(v, (b as Record<string, unknown>)[k], `${path}.${k}`);
}

/** The exact parts of a run's inputs: arms, histograms, samples; the moments as means and m2. */
function expectEqualInputs(single: RunInputs, sharded: RunInputs) {
  expect(sharded.arms).toEqual(single.arms);
  expect(sharded.arrivals).toEqual(single.arrivals);
  for (const [i, m] of single.metrics.entries()) {
    const other = sharded.metrics[i];
    expect(other?.stats.histograms, m.definition.name).toEqual(m.stats.histograms);
    expect(other?.samples, m.definition.name).toEqual(m.samples);
    expect(other?.quantiles, m.definition.name).toEqual(m.quantiles);
    expect(other?.cap, m.definition.name).toEqual(m.cap);
    expect(Object.keys(other?.stats.arms ?? {}).sort()).toEqual(Object.keys(m.stats.arms).sort());
    for (const [arm, s] of Object.entries(m.stats.arms)) {
      const t = other?.stats.arms[arm];
      expect(t?.n).toBe(s.n);
      expect(t?.nWithCovariate).toBe(s.nWithCovariate);
      if (t) expectClose(covariateMoments(s), covariateMoments(t), `${m.definition.name}.${arm}`);
    }
  }
}

describe('an analysis scattered over three shards and merged', () => {
  it('puts users on every shard, each its own server on PostgreSQL', async () => {
    if (TEST_DB === 'postgres')
      expect(new Set(handles.map((d) => new URL(d.url ?? '').port)).size).toBe(3);
    for (const shard of handles) {
      const [c] = await rows<{ n: unknown }>(
        shard.db,
        sql`select count(*) as n from user_day_stats`,
      );
      expect(Number(c?.n)).toBeGreaterThan(100);
    }
  });

  it('holds on the shards together exactly the single database’s event rows and value counts', async () => {
    for (const table of ['events', 'user_day_stats', 'user_day_business', 'call_value_counts'])
      expect(await tableRows(handles, table), table).toEqual(await tableRows([h.ctx], table));
  });

  for (const kind of ['nightly', 'manual'] as const)
    for (const name of ['mixed', 'plain', 'orgwide', 'quant'])
      it(`gives ${name}'s ${kind} run the single database's inputs and results`, async () => {
        const { single, sharded } = await bothRuns(name, kind);
        expectEqualInputs(single, sharded);
        const a = computeRun(single);
        const b = computeRun(sharded);
        expect(a.status).toBe('computed');
        // What the comparison covers: CUPED with a covariate, sequential intervals when manual.
        const results = Object.values(a.results);
        if (name === 'mixed' || name === 'orgwide')
          expect(results.some((r) => (r.cuped?.covariate_coverage ?? 0) > 0)).toBe(true);
        // A quantile's test reads only exact parts (order statistics, integer cluster sums).
        const quantiles = (r: typeof a) =>
          Object.values(r.results)
            .filter((x) => /^(p90-latency|median-tokens)$/.test(x.metric))
            .map((x) => [
              x.metric,
              x.effect,
              x.quantile_per_arm,
              x.calls_per_arm,
              x.ci_low,
              x.ci_high,
              x.statistic,
              x.p_value,
            ]);
        if (name === 'quant') expect(quantiles(a)).toHaveLength(4);
        // Caps that touched users: the default on latency, both bounds on mixed's revenue.
        if (name === 'quant' || name === 'mixed')
          expect(
            single.metrics.some((m) => Object.values(m.cap?.capped ?? {}).some((n) => n > 0)),
          ).toBe(true);
        if (name === 'mixed') expect(single.metrics[0]?.cap?.lower).not.toBeNull();
        expect(quantiles(b)).toEqual(quantiles(a));
        if (kind === 'manual') expect(results.every((r) => r.sequential)).toBe(true);
        expect(b.srm).toEqual(a.srm);
        expectClose(a, b);
      });

  it('merges the quantile arms exactly, from raw calls and from the fold’s value counts', async () => {
    const found = await loadExperiment(h.ctx.db, org.orgId, ids.quant as string);
    const scope = valueScope(found, new Date(Date.now() + DAY_MS));
    for (const definition of found.version.config.metrics.filter((m) => m.quantile)) {
      const raw = await readQuantileArms(h.ctx.db, scope, definition);
      const folded = await readFoldedQuantileArms(h.ctx.db, scope, definition);
      expect(Object.keys(raw.arms).sort()).toEqual(['a', 'b', 'control']);
      expect(folded).toEqual(raw);
      expect(await readShardedQuantileArms(shards, scope, definition, { raw: true })).toEqual(raw);
      expect(await readShardedQuantileArms(shards, scope, definition, { raw: false })).toEqual(raw);
    }
  });

  it('reads the org-wide covariate under the org’s other experiments on every shard', async () => {
    const { single, sharded } = await bothRuns('orgwide', 'nightly');
    const arms = (inputs: RunInputs) => Object.values(inputs.metrics[0]?.stats.arms ?? {});
    // The pre-period is mixed's history: four users in five have one.
    for (const s of [...arms(single), ...arms(sharded)])
      expect(s.nWithCovariate / s.n).toBeGreaterThan(0.7);
    const covered = (inputs: RunInputs) =>
      Object.entries(inputs.metrics[0]?.stats.arms ?? {}).map(([arm, s]) => [
        arm,
        s.nWithCovariate,
      ]);
    expect(covered(sharded).sort()).toEqual(covered(single).sort());
  });

  it('breaks a run down by dimension as one database does, slice by slice', async () => {
    const { found, single, sharded } = await bothRuns('quant', 'manual');
    const scope = valueScope(found, new Date(Date.now() + DAY_MS));
    const one = await readBreakdowns(h.ctx.shards, scope, single, DIMENSIONS);
    const three = await readBreakdowns(shards, scope, sharded, DIMENSIONS);
    const segments = one['metadata.segment'] ?? [];
    // Twenty top values and (other) last: the cut and its ties fall as on one database.
    expect(segments).toHaveLength(21);
    expect(segments.at(-1)?.value).toBe(OTHER_SLICE);
    expect((one.model ?? []).map((s) => s.value).sort()).toEqual(['claude-c', 'gpt-a', 'gpt-b']);
    for (const dimension of DIMENSIONS) {
      const exact = (slices: typeof segments) =>
        slices.map((s) => ({
          value: s.value,
          users: s.users,
          arms: s.arms,
          srm: s.srm,
          quantiles: Object.values(s.results)
            .filter((r) => r.metric === 'p90-latency' || r.metric === 'median-tokens')
            .map((r) => [
              r.effect,
              r.quantile_per_arm,
              r.calls_per_arm,
              r.ci_low,
              r.ci_high,
              r.statistic,
              r.p_value,
            ]),
          ranks: Object.values(s.results)
            .filter((r) => r.metric === 'latency-ranks')
            .map((r) => [r.statistic, r.p_value]),
        }));
      expect(exact(three[dimension] ?? [])).toEqual(exact(one[dimension] ?? []));
      expectClose(one[dimension], three[dimension], dimension);
    }
    const tested = segments.flatMap((s) => Object.values(s.results));
    expect(tested.some((r) => r.metric === 'p90-latency' && r.p_value !== null)).toBe(true);
  });

  it('samples the rank tests at their cap exactly as one database does', async () => {
    const found = await loadExperiment(h.ctx.db, org.orgId, ids.mixed as string);
    const scope = valueScope(found, new Date(Date.now() + DAY_MS));
    for (const name of ['score', 'rating']) {
      const definition = found.version.config.metrics.find(
        (m) => m.name === name,
      ) as MetricDefinition;
      const one = await readArmSamples(h.ctx.db, { scope, metric: definition, cap: 40 });
      const three = await readShardedSamples(shards, { scope, metric: definition, cap: 40 });
      expect(one.capUsed).toBe(true);
      expect(three).toEqual(one);
      // Then the tests themselves: the same samples give the same p-values, exactly.
      const { single, sharded } = await bothRuns('mixed', 'nightly');
      const capped = (inputs: RunInputs, samples: typeof one): RunInputs => ({
        ...inputs,
        metrics: inputs.metrics.map((m) => (m.definition.name === name ? { ...m, samples } : m)),
      });
      const a = computeRun(capped(single, one));
      const b = computeRun(capped(sharded, three));
      const ofMetric = (r: typeof a) => Object.values(r.results).filter((x) => x.metric === name);
      // The rank statistic and its p-value exactly; BH's adjusted p-values see the moment
      // tests' too, so they are as close as those.
      const exact = (r: typeof a) => ofMetric(r).map((x) => [x.test, x.statistic, x.p_value]);
      expect(exact(a)).toHaveLength(2);
      expect(exact(b)).toEqual(exact(a));
      expectClose(ofMetric(a), ofMetric(b));
      for (const r of ofMetric(a)) expect(r.p_value).toBeGreaterThan(0);
    }
  });

  it('records a nightly run that needs a down shard as failed, publishes nothing, then retries', async () => {
    const down = await freshDatabase();
    await down.close();
    const day = new Date().toISOString().slice(0, 10);
    const stored = () =>
      rows<{ n: unknown }>(
        h.ctx.db,
        sql`select count(*) as n from analysis_runs where kind = 'nightly' and label = ${day}`,
      );
    const before = Number((await stored())[0]?.n);
    const failing = {
      ...h.ctx,
      shards: shardSetOf([handles[0], handles[1], down] as DatabaseHandle[]),
    };
    const summary = await runNightly(failing, day, 0);
    expect(summary.ran).toBe(true);
    expect(summary.experiments.map((e) => e.status)).toEqual([
      'failed',
      'failed',
      'failed',
      'failed',
    ]);
    for (const e of summary.experiments) expect(e.reason).toMatch(/^shard 2 unreadable: /);
    expect(Number((await stored())[0]?.n)).toBe(before);
    const owner = await h.token({ sub: 'boss', email: 'boss@arbiter.test', org_id: 'staff' });
    const res = await h.call(owner, { method: 'GET', url: '/v1/admin/health' });
    expect(res.statusCode, res.body).toBe(200);
    const lastRun = res.json().nightly.last_run;
    expect(lastRun).toMatchObject({ day, outcome: 'failed', experiments: 4 });
    expect(lastRun.error).toMatch(/^4 of 4 experiments failed and are retried on the next run; /);
    for (const name of ['mixed', 'plain', 'orgwide', 'quant'])
      expect(lastRun.error).toContain(`${name}: shard 2 unreadable: `);
    // The next pass, with every shard up, publishes both from all of their users.
    const retried = await runNightly({ ...h.ctx, shards }, day, 0);
    expect(retried.experiments.map((e) => e.status)).toEqual([
      'computed',
      'computed',
      'computed',
      'computed',
    ]);
    expect(Number((await stored())[0]?.n)).toBe(before + 4);
  });
});
