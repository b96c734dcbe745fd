/**
 * The nightly pipeline over 10 experiments × BENCH_USERS
 * (default 1,000,000) users × 3 metrics on PostgreSQL, against one plain SQL aggregate over the
 * same rows, measured in one run. Prints time, peak memory and the ratio, then one manual run of
 * an experiment whose latency metric is overridden to Mann–Whitney (bounded by the plan's
 * max_sample_per_arm). Then the scale curve: the same at 1x, 4x and 16x the users (the last is
 * BENCH_USERS), each on a fresh database; BENCH_SCALE=0 runs only the last.
 * Run: npx tsx bench/server/pipeline.bench.ts (BENCH_USERS=100000 for the smaller size;
 * BENCH_DAYS=N gives every user a row on each of N days, the window N days).
 * BENCH_LLM_METRICS=1 then measures the largest size again with a p95-latency metric (read from
 * two stored model calls per user-day, matching the aggregates) and a tokens-per-checkout ratio
 * added, and prints both ratios to the plain aggregate (goal: within 1.5× of the first).
 * BENCH_SHARDS=N keeps the users' rows on N more databases of the cluster, each
 * user where `shardOf` puts it, the experiments in the first: the run then scatters its reads
 * over the N and merges them, and the plain aggregate runs on all N at once. CPU then counts
 * every shard's backends and this process (the coordinator, whose share is the merge).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { eq, type SQL, sql } from 'drizzle-orm';
import pg from 'pg';
import { runNightly, SCHEDULED_FOLD_WAIT_MS } from '../../apps/server/src/analysis/run/nightly.ts';
import { analyzeExperiment } from '../../apps/server/src/analysis/run/pipeline.ts';
import { loadConfig } from '../../apps/server/src/config.ts';
import { createContext } from '../../apps/server/src/create-context.ts';
import { callValueOrNull } from '../../apps/server/src/db/call-values.ts';
import {
  type Database,
  type DatabaseHandle,
  openDatabase,
} from '../../apps/server/src/db/connect.ts';
import { experiments } from '../../apps/server/src/db/schema.ts';
import { shardSetOf } from '../../apps/server/src/db/shards/shard-set.ts';
import { loadCurrentVersion } from '../../apps/server/src/domain/experiments/current-version.ts';
import { createExperiment } from '../../apps/server/src/domain/experiments/service.ts';
import { setPlanOverride } from '../../apps/server/src/domain/plans/plan-override.ts';
import { experimentConfig, LLM_FEATURE_METRICS } from '../../apps/server/test/support/builders.ts';
import { shardOf } from '../../packages/bucketing/src/shard.ts';
import { cpuSecondsBetween, cpuSecondsOf, databaseCpuSeconds, freshPostgres } from './setup.ts';

const EXPERIMENTS = Number(process.env.BENCH_EXPERIMENTS ?? 10);
const USERS = Number(process.env.BENCH_USERS ?? 1_000_000);
const DAY = '2026-11-20';
/** Days of data per user: the window then runs from DAYS − 1 days before DAY to DAY. */
const DAYS = Number(process.env.BENCH_DAYS ?? 1);
/** Databases the users' rows are spread over; 1 keeps them in the one database (no scatter). */
const SHARDS = Number(process.env.BENCH_SHARDS ?? 1);

/** The LLM metrics: a quantile over stored calls and a ratio over the aggregates. */
const LLM_METRICS = [
  {
    name: 'p95-latency',
    kind: 'latency',
    category: 'secondary',
    method_default: 'welch_t',
    metric_version: 1,
    shared_org_wide: false,
    quantile: 0.95,
  },
  {
    name: 'tokens-per-checkout',
    kind: 'ratio',
    category: 'secondary',
    method_default: 'welch_t',
    metric_version: 1,
    shared_org_wide: false,
    direction: 'decrease',
    numerator: { of: 'tokens' },
    denominator: { business_metric: 'checkout', of: 'count' },
  },
] as const;

const BASELINE = `select s.experiment_id, s.variant, count(*), sum(s.latency_sum / nullif(s.latency_n, 0)),
    sum(s.tokens_sum / nullif(s.tokens_n, 0)), count(b.user_id)
  from user_day_stats s
  left join user_day_business b on b.experiment_id = s.experiment_id and b.day = s.day and b.user_id = s.user_id
    and b.variant = s.variant and b.metric = 'checkout'
  group by s.experiment_id, s.variant`;

/**
 * CPU the database's PostgreSQL processes spend from now until `stop()` (setup.ts's per-process
 * reading): read every second and each process's latest reading kept, so a pooled connection
 * that closes on its idle timeout (10 s, pg's default) keeps what it used. The meter's own
 * connection is left out. A reading costs this process about 2 ms of CPU on a busy machine,
 * which counts as the pipeline's: every 100 ms (as before) that was ~20 ms per second of the
 * run, 5 % of a one-day run's CPU at 100k users and more the busier the machine.
 * On a shared machine CPU time, unlike wall time, is not stretched by the neighbours.
 */
async function databaseCpuMeter(url: string) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const { rows } = await client.query<{ pid: number }>('select pg_backend_pid() as pid');
  const own = rows[0]?.pid;
  const reading = async () => {
    const seconds = await databaseCpuSeconds(client);
    seconds.delete(own as number);
    return seconds;
  };
  // Autovacuum workers, told apart: they clean up after the load, not for the pipeline.
  const vacuum = new Set<number>();
  const vacuumWorkers = async () => {
    const workers = await client.query<{ pid: number }>(
      `select pid from pg_stat_activity where datname = current_database()
         and backend_type = 'autovacuum worker'`,
    );
    for (const w of workers.rows) vacuum.add(w.pid);
  };
  await vacuumWorkers();
  const first = await reading();
  const last = new Map(first);
  let sampling: Promise<void> | null = null;
  const sample = async () => {
    await vacuumWorkers();
    for (const [pid, seconds] of await reading())
      if (Number.isFinite(seconds)) last.set(pid, seconds);
  };
  const timer = setInterval(() => {
    sampling ??= sample().finally(() => {
      sampling = null;
    });
  }, 1000);
  return {
    /** The first and the latest reading of each process, for `cpuMsOfMeters`. */
    async stop(): Promise<Readings> {
      clearInterval(timer);
      await sampling;
      await sample();
      await client.end();
      return { first, last, vacuum };
    },
  };
}

interface Readings {
  first: Map<number, number>;
  last: Map<number, number>;
  vacuum: Set<number>;
}

/**
 * CPU ms the meters' processes spent, each process once. The server-wide WAL writer,
 * checkpointer and background writer appear in every database's readings: summed per meter
 * they counted once per database, four times with three shards (the control database and the
 * shards), which made sharded runs look dearer than they were. Also those processes' share:
 * they flush what the load left dirty.
 */
function cpuMsOfMeters(readings: readonly Readings[]): {
  total: number;
  serverWide: number;
  autovacuum: number;
} {
  const first = new Map<number, number>();
  const last = new Map<number, number>();
  for (const r of readings) {
    for (const [pid, s] of r.first)
      if (Number.isFinite(s)) first.set(pid, Math.min(first.get(pid) ?? s, s));
    for (const [pid, s] of r.last) last.set(pid, Math.max(last.get(pid) ?? s, s));
  }
  // Those in every meter's readings: the server-wide processes (with one meter, unknown).
  const shared = new Map([...last].filter(([pid]) => readings.every((r) => r.last.has(pid))));
  return {
    total: cpuSecondsBetween(first, last) * 1000,
    serverWide: readings.length > 1 ? cpuSecondsBetween(first, shared) * 1000 : Number.NaN,
    autovacuum:
      cpuSecondsBetween(
        first,
        new Map([...last].filter(([pid]) => readings.some((r) => r.vacuum.has(pid)))),
      ) * 1000,
  };
}

function processCpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

/** The CPU the baseline statement costs in its own backend, without parallel workers. */
async function serialCpuMs(url: string, statement: string): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('set max_parallel_workers_per_gather = 0');
    const { rows } = await client.query<{ pid: number }>('select pg_backend_pid() as pid');
    const pid = rows[0]?.pid;
    const before = cpuSecondsOf(pid);
    await client.query(statement);
    return (cpuSecondsOf(pid) - before) * 1000;
  } finally {
    await client.end();
  }
}

interface Measured {
  elapsed: number;
  baseline: number;
  cpuRatio: number;
  /** CPU µs of the run (every database backend and this process) per user and experiment. */
  cpuPerUserExperiment: number;
  /** CPU ms of this process: the coordinator's reading, merging and computing. */
  coordinatorCpu: number;
}

async function measure(users: number, llmMetrics = false): Promise<Measured> {
  const db = await freshPostgres();
  const dataDir = mkdtempSync(join(tmpdir(), 'arbiter-bench-'));
  const config = loadConfig({
    ARBITER_DATABASE_URL: db.url,
    ARBITER_DATA_DIR: dataDir,
    ARBITER_LOG_LEVEL: 'silent',
    // Experiments analysed at once (the server's default, 2, unless BENCH_ANALYSIS_CONCURRENCY).
    ...(process.env.BENCH_ANALYSIS_CONCURRENCY
      ? { ARBITER_ANALYSIS_CONCURRENCY: process.env.BENCH_ANALYSIS_CONCURRENCY }
      : {}),
  });
  const ctx = await createContext(config);
  const shards = await openShards();
  const run = shards.length ? { ...ctx, shards: shardSetOf(shards.map((d) => d.handle)) } : ctx;
  try {
    const caller = await ctx.identity.resolve({
      sub: 'bench',
      email: 'bench@example.com',
      name: 'Bench',
      orgExternalId: 'bench-org',
      role: 'admin',
    });
    // Pro plan: max_sample_per_arm 100,000, so the Mann–Whitney run below samples 1M users down.
    await setPlanOverride(ctx.db, caller.orgId, 'pro', { userId: null }, new Date());
    const ids: string[] = [];
    for (let e = 0; e < EXPERIMENTS; e++) {
      const exp = await createExperiment(
        ctx.db,
        caller,
        experimentConfig({
          name: `bench-${e}`,
          salt: `bench-${e}`,
          bucket_count: 10_000,
          metrics: llmMetrics ? [...LLM_FEATURE_METRICS, ...LLM_METRICS] : LLM_FEATURE_METRICS,
        }),
        ctx.clock.now(),
      );
      ids.push(exp.id);
    }
    // Experiments "began" DAYS − 1 days before the analysed day: the window is DAYS days.
    await ctx.db.execute(
      sql`update experiments set created_at = ${`${DAY}T00:00:00Z`}::timestamptz - make_interval(days => ${DAYS - 1}::int)`,
    );
    const loadStart = performance.now();
    const targets = placements(ctx.db, shards, caller.orgId, users);
    for (const id of ids)
      for (const { db: target, source } of targets) {
        await target.execute(sql`
        insert into user_day_stats (experiment_id, day, variant, user_id, exposures, calls, errors,
          latency_n, latency_sum, tokens_n, tokens_sum, cost_sum, cost_n)
        select ${id}::uuid, ${DAY}::date - d, case when g % 2 = 0 then 'control' else 'treatment' end, 'user-' || g,
          1, 2, 0, 2, 2 * (400 + (g % 97)), 2, 2 * (300 + (g % 53)), 0, 2
        from generate_series(0, ${DAYS - 1}) d, ${source}`);
        await target.execute(sql`
        insert into user_day_business (experiment_id, day, metric, variant, user_id, n, sum)
        select ${id}::uuid, ${DAY}::date - d, 'checkout', case when g % 2 = 0 then 'control' else 'treatment' end, 'user-' || g, 1, 1
        from generate_series(0, ${DAYS - 1}) d, ${source} where g % 10 = 0`);
        if (llmMetrics) await storeCalls(ctx, caller.orgId, id, users);
      }
    // VACUUM (ANALYZE), not ANALYZE alone, on every database loaded (the control database and
    // each shard): the load leaves millions of fresh inserts, and autovacuum's insert threshold
    // would otherwise start its workers on them minutes later, inside the measured run on one
    // side or the other (0.6-0.9 s of ~32 s in the 1M runs over shards). Vacuumed here, the
    // tables are under every threshold, so the run's CPU is the run's; the meter still prints
    // autovacuum's share, to show it stayed out.
    for (const target of new Set([ctx.db, ...targets.map((t) => t.db)]))
      await target.execute(sql`vacuum (analyze)`);
    const loaded = performance.now();

    // Baseline: one plain aggregate over the same rows (per experiment and arm).
    // With shards, on every shard at once: the aggregate a scatter would start from.
    const urls = shards.length ? shards.map((d) => d.url) : [db.url];
    const baseStart = performance.now();
    await Promise.all(targets.map((t) => t.db.execute(sql.raw(BASELINE))));
    const baseline = performance.now() - baseStart;
    let baselineCpu = 0;
    for (const url of urls) baselineCpu += await serialCpuMs(url, BASELINE);

    const loadBefore = loadavg()[0] as number;
    const rssBefore = process.memoryUsage().rss;
    let peak = rssBefore;
    const sampler = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage().rss);
    }, 20);
    const meters = await Promise.all(
      [...new Set([db.url, ...urls])].map((url) => databaseCpuMeter(url)),
    );
    const processBefore = processCpuMs();
    const start = performance.now();
    const summary = await runNightly(run, DAY, SCHEDULED_FOLD_WAIT_MS);
    const elapsed = performance.now() - start;
    const ownCpu = processCpuMs() - processBefore;
    const metered = cpuMsOfMeters(await Promise.all(meters.map((meter) => meter.stop())));
    const pipelineCpu = ownCpu + metered.total;
    clearInterval(sampler);
    peak = Math.max(peak, process.memoryUsage().rss);
    const statuses = summary.experiments.map((e) => e.status);
    if (statuses.length !== EXPERIMENTS || statuses.some((s) => s !== 'computed'))
      throw new Error(`unexpected run: ${JSON.stringify(summary)}`);

    console.log(
      `data: ${EXPERIMENTS} experiments × ${users} users × ${llmMetrics ? 5 : 3} metrics × ${DAYS} day(s) on ${Math.max(1, SHARDS)} shard(s), loaded in ${((loaded - loadStart) / 1000).toFixed(1)} s (PostgreSQL)`,
    );
    console.log(`nightly pipeline:          ${(elapsed / 1000).toFixed(2)} s`);
    console.log(`plain SQL aggregate:       ${(baseline / 1000).toFixed(2)} s`);
    console.log(`ratio pipeline/aggregate:  ${(elapsed / baseline).toFixed(1)}   (goal <= 3)`);
    console.log(
      `CPU: pipeline ${Math.round(pipelineCpu)} ms (the database's PostgreSQL processes and this one, ${Math.round(ownCpu)} ms of it this one), aggregate run serially ${Math.round(baselineCpu)} ms, ratio ${(pipelineCpu / baselineCpu).toFixed(2)}`,
    );
    if (Number.isFinite(metered.serverWide))
      console.log(
        `CPU of the server-wide WAL writer, checkpointer and background writer: ${Math.round(metered.serverWide)} ms of it`,
      );
    console.log(`CPU of autovacuum workers: ${Math.round(metered.autovacuum)} ms of it`);
    console.log(
      `load average:              ${loadBefore.toFixed(2)} before the run, ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' / ')} (1/5/15 min) after`,
    );
    console.log(
      `peak RSS during the run:   ${Math.round(peak / 1048576)} MiB (${Math.round(rssBefore / 1048576)} MiB before)`,
    );
    // Mann–Whitney reads a seeded sample of at most max_sample_per_arm users per arm.
    await ctx.db.execute(sql`insert into metric_method_overrides (experiment_id, metric, method)
      values (${ids[0]}::uuid, 'latency', 'mann_whitney')`);
    const mwRssBefore = process.memoryUsage().rss;
    let mwPeak = mwRssBefore;
    const mwSampler = setInterval(() => {
      mwPeak = Math.max(mwPeak, process.memoryUsage().rss);
    }, 20);
    const mwStart = performance.now();
    const [found] = await loadCurrentVersion(ctx.db, eq(experiments.id, ids[0] as string));
    if (!found) throw new Error('the benchmark experiment is gone');
    const manual = await analyzeExperiment(run, found, {
      kind: 'manual',
      label: `manual-${new Date().toISOString()}`,
      windowEnd: new Date(`${DAY}T23:59:59Z`),
      foldedThrough: new Date(),
    });
    const mwElapsed = performance.now() - mwStart;
    clearInterval(mwSampler);
    mwPeak = Math.max(mwPeak, process.memoryUsage().rss);
    const mw = manual.results['latency::treatment'];
    // The quantile must have read every call: two per user-day, in both arms.
    const p95 = manual.results['p95-latency::treatment'];
    if (llmMetrics && p95?.calls_per_arm?.control !== users * DAYS)
      throw new Error(
        `the p95 read ${JSON.stringify(p95?.calls_per_arm)} calls, not ${users * DAYS}`,
      );
    console.log(
      `Mann–Whitney manual run:   ${(mwElapsed / 1000).toFixed(2)} s, test ${mw?.test}, sample_cap_used ${mw?.sample_cap_used}, n ${JSON.stringify(mw?.n_per_arm)}, peak RSS ${Math.round(mwPeak / 1048576)} MiB (${Math.round(mwRssBefore / 1048576)} MiB before)`,
    );
    return {
      elapsed,
      baseline,
      cpuRatio: pipelineCpu / baselineCpu,
      cpuPerUserExperiment: (pipelineCpu * 1000) / (users * EXPERIMENTS),
      coordinatorCpu: ownCpu,
    };
  } finally {
    await ctx.close();
    await db.drop();
    for (const shard of shards) {
      await shard.handle.close();
      await shard.drop();
    }
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** BENCH_SHARDS fresh, migrated databases for the users' rows; none when it is 1. */
async function openShards() {
  if (SHARDS <= 1) return [];
  return Promise.all(
    Array.from({ length: SHARDS }, async () => {
      const fresh = await freshPostgres();
      const handle: DatabaseHandle = await openDatabase({ kind: 'postgres', url: fresh.url });
      return { ...fresh, handle };
    }),
  );
}

/**
 * Where the users' rows go: all of them (user-1 … user-N) into the control database, or into
 * each shard the users `shardOf` puts there, as a relation of one column `g`.
 */
function placements(
  control: Database,
  shards: ReadonlyArray<{ handle: DatabaseHandle }>,
  orgId: string,
  users: number,
): Array<{ db: Database; source: SQL }> {
  if (shards.length === 0) return [{ db: control, source: sql`generate_series(1, ${users}) g` }];
  const lists = shards.map(() => [] as number[]);
  for (let g = 1; g <= users; g++) lists[shardOf(orgId, `user-${g}`, shards.length)]?.push(g);
  return shards.map((shard, i) => ({
    db: shard.handle.db,
    source: sql`(select value::int as g from json_array_elements_text(${JSON.stringify(lists[i])}::json)) gs`,
  }));
}

/**
 * The two model calls per user-day the aggregates above count, as stored events (each of the
 * user's latency and tokens values, a cost of 0), taken out of the fold's queue: they are
 * folded already, by construction, so their counts per value are added as the fold adds them.
 */
async function storeCalls(
  ctx: Awaited<ReturnType<typeof createContext>>,
  orgId: string,
  id: string,
  users: number,
) {
  await ctx.db.execute(sql`
    insert into events (org_id, event_id, type, experiment_id, user_id, variant, occurred_at,
      received_at, latency_ms, input_tokens, output_tokens, cost_usd, model)
    select ${orgId}::uuid, 'call-' || ${id} || '-' || d || '-' || g || '-' || c, 'model_call',
      ${id}::uuid, 'user-' || g, case when g % 2 = 0 then 'control' else 'treatment' end,
      (${DAY}::date - d)::timestamp at time zone 'UTC' + interval '12 hours',
      (${DAY}::date - d)::timestamp at time zone 'UTC' + interval '12 hours',
      400 + (g % 97), 300 + (g % 53), 0, 0, 'bench-model'
    from generate_series(0, ${DAYS - 1}) d, generate_series(1, ${users}) g, generate_series(1, 2) c`);
  await ctx.db.execute(sql`
    insert into call_value_counts (experiment_id, kind, day, variant, value, n)
    select e.experiment_id, k.kind, (e.occurred_at at time zone 'UTC')::date, e.variant, k.value, count(*)
    from events e cross join lateral (values ('latency', ${callValueOrNull('latency')}::float8),
      ('tokens', ${callValueOrNull('tokens')}::float8), ('cost', ${callValueOrNull('cost')}::float8))
      as k(kind, value)
    where e.experiment_id = ${id}::uuid and k.value is not null
    group by 1, 2, 3, 4, 5`);
  await ctx.db.execute(sql`delete from ingest_pending`);
}

async function main() {
  const factors = process.env.BENCH_SCALE === '0' ? [16] : [1, 4, 16];
  const runs: (Measured & { users: number })[] = [];
  for (const factor of factors) {
    const users = Math.round((USERS / 16) * factor);
    runs.push({ users, ...(await measure(users)) });
  }
  console.log(
    `\nscale curve (${Math.max(1, SHARDS)} shard(s)): users | pipeline s | aggregate s | ratio | CPU ratio | pipeline µs per user-experiment | CPU µs per user-experiment | coordinator CPU ms`,
  );
  runs.forEach((r, i) => {
    console.log(
      `${String(factors[i]).padStart(3)}x ${String(r.users).padStart(8)} | ${(r.elapsed / 1000).toFixed(2)} | ${(r.baseline / 1000).toFixed(2)} | ${(r.elapsed / r.baseline).toFixed(1)} | ${r.cpuRatio.toFixed(2)} | ${((r.elapsed * 1000) / (r.users * EXPERIMENTS)).toFixed(1)} | ${r.cpuPerUserExperiment.toFixed(1)} | ${Math.round(r.coordinatorCpu)}`,
    );
  });
  if (process.env.BENCH_LLM_METRICS !== '1') return;
  const plain = runs[runs.length - 1] as Measured & { users: number };
  console.log('\nthe same users with a p95-latency and a tokens-per-checkout metric added:');
  const llm = await measure(plain.users, true);
  const before = plain.elapsed / plain.baseline;
  const after = llm.elapsed / llm.baseline;
  console.log(
    `ratio to the aggregate: ${before.toFixed(2)} with 3 metrics, ${after.toFixed(2)} with 5; factor ${(after / before).toFixed(2)} (goal <= 1.5); CPU ratios ${plain.cpuRatio.toFixed(2)} and ${llm.cpuRatio.toFixed(2)}, factor ${(llm.cpuRatio / plain.cpuRatio).toFixed(2)}`,
  );
}

await main();
