/**
 * What a shard's two phases cost its backend beyond the single statement, and
 * whether phase 2 should read the values phase 1 kept in a temporary table (as
 * `readShardedStats` does) or compute the per-user rows again (one snapshot for both phases).
 * One shard's share of a 1M-user experiment (BENCH_USERS, default 333,334 users, the bench's
 * rows, 3 metrics binned), each variant in turn BENCH_ROUNDS times (default 5), the backends'
 * CPU of the database summed per variant:
 * - single: `readSufficientStats`, the one statement a database without shards runs;
 * - kept: phase 1 with the values kept in `shard_u` by a data-modifying CTE, phase 2 over it;
 * - recomputed: phase 1 the partials alone, phase 2 the per-user rows again, then the bins.
 * Run: npx tsx bench/server/shard-phases.bench.ts
 */
import { DEFAULT_HISTOGRAM_BINS, pooledBinEdges } from '@arbiter/stats';
import { type SQL, sql } from 'drizzle-orm';
import pg from 'pg';
import { inAnalysisTransaction } from '../../apps/server/src/analysis/run/analysis-transaction.ts';
import {
  keepingBinnedValues,
  partials,
  SHARD_U,
} from '../../apps/server/src/analysis/shards/sharded-stats.ts';
import { binnedCtes } from '../../apps/server/src/analysis/sql/histogram-sql.ts';
import { readSufficientStats } from '../../apps/server/src/analysis/sql/sufficient-stats.ts';
import { perUserCtes } from '../../apps/server/src/analysis/sql/user-values-sql.ts';
import { type Database, openDatabase, rows } from '../../apps/server/src/db/connect.ts';
import { LLM_FEATURE_METRICS } from '../../apps/server/test/support/builders.ts';
import { cpuSecondsBetween, cpuSecondsOf, freshPostgres } from './setup.ts';

const USERS = Number(process.env.BENCH_USERS ?? 333_334);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const DAY = '2026-11-20';
const EXPERIMENT = '00000000-0000-4000-8000-000000000001';
const metrics = LLM_FEATURE_METRICS;
const groups = [
  { key: 'treatment', variants: ['control', 'treatment'], metrics: metrics.map((m) => m.name) },
];
const scope = {
  experimentId: EXPERIMENT,
  orgId: '00000000-0000-4000-8000-000000000002',
  window: { from: DAY, to: DAY },
};
const ctes = perUserCtes(scope, metrics);

/**
 * Phase 2's bins over `u` as `with_` defines it, with edges pooled from this shard's ranges.
 * Phase 1 is `readShardedStats`' own (imported); this is not its `binCounts`, which reads only
 * `shard_u`: the recomputed variant bins the per-user rows again.
 */
async function bins(tx: Database, ranges: unknown, with_: SQL): Promise<number> {
  const list = (typeof ranges === 'string' ? JSON.parse(ranges) : ranges) as Array<{
    metric: string;
    lo: number;
    hi: number;
  }>;
  const edgeRows = metrics.map((m) => {
    const mine = list.filter((r) => r.metric === m.name);
    const edges = pooledBinEdges(
      Math.min(...mine.map((r) => Number(r.lo))),
      Math.max(...mine.map((r) => Number(r.hi))),
      DEFAULT_HISTOGRAM_BINS,
    ) as number[];
    return sql`(${m.name}::text, 'treatment'::text, array[${sql.join(
      edges.map((x) => sql`${String(x)}::float8`),
      sql`, `,
    )}])`;
  });
  const [row] = await rows<{ n: unknown }>(
    tx,
    sql`with ${with_}, edges(metric, g, edges) as (values ${sql.join(edgeRows, sql`, `)}),
      ${binnedCtes(metrics, groups, DEFAULT_HISTOGRAM_BINS)}
      select count(*) as n from bins`,
  );
  return Number(row?.n);
}

const variants: Record<string, (db: Database) => Promise<unknown>> = {
  single: (db) => readSufficientStats(db, scope, metrics, groups),
  kept: (db) =>
    inAnalysisTransaction(
      db,
      async (tx) => {
        const [p] = await rows<{ ranges: unknown }>(
          tx,
          await keepingBinnedValues(tx, metrics, ctes),
        );
        return bins(tx, p?.ranges, SHARD_U);
      },
      { temporaryRows: true },
    ),
  recomputed: (db) =>
    inAnalysisTransaction(
      db,
      async (tx) => {
        const [p] = await rows<{ ranges: unknown }>(tx, partials(ctes, metrics));
        return bins(tx, p?.ranges, ctes);
      },
      { snapshot: true },
    ),
};

/** CPU seconds so far of the database's own backends (not the server-wide writers). */
async function backendCpu(meter: pg.Client, own: number | undefined) {
  const { rows: found } = await meter.query<{ pid: number }>(
    `select pid from pg_stat_activity where datname = current_database() and pid <> $1`,
    [own],
  );
  return new Map(found.map((r) => [r.pid, cpuSecondsOf(r.pid)]));
}

async function main() {
  const fresh = await freshPostgres();
  const handle = await openDatabase({ kind: 'postgres', url: fresh.url });
  const meter = new pg.Client({ connectionString: fresh.url });
  try {
    const db = handle.db;
    await db.execute(sql`
      insert into user_day_stats (experiment_id, day, variant, user_id, exposures, calls, errors,
        latency_n, latency_sum, tokens_n, tokens_sum, cost_sum, cost_n)
      select ${EXPERIMENT}::uuid, ${DAY}::date, case when g % 2 = 0 then 'control' else 'treatment' end,
        'user-' || g, 1, 2, 0, 2, 2 * (400 + (g % 97)), 2, 2 * (300 + (g % 53)), 0, 2
      from generate_series(1, ${USERS}) g`);
    await db.execute(sql`
      insert into user_day_business (experiment_id, day, metric, variant, user_id, n, sum)
      select ${EXPERIMENT}::uuid, ${DAY}::date, 'checkout', case when g % 2 = 0 then 'control' else 'treatment' end,
        'user-' || g, 1, 1
      from generate_series(1, ${USERS}) g where g % 10 = 0`);
    await db.execute(sql`vacuum (analyze)`);
    await meter.connect();
    const own = (await meter.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0]?.pid;
    const cpu: Record<string, number[]> = { single: [], kept: [], recomputed: [] };
    for (const name of Object.keys(variants)) await variants[name]?.(db); // warm every backend
    for (let r = 0; r < ROUNDS; r++)
      for (const [name, run] of Object.entries(variants)) {
        const before = await backendCpu(meter, own);
        await run(db);
        const after = await backendCpu(meter, own);
        cpu[name]?.push(cpuSecondsBetween(before, after) * 1000);
      }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
    console.log(`${USERS} users, 3 metrics binned, ${ROUNDS} rounds; backend CPU ms per read:`);
    for (const [name, xs] of Object.entries(cpu))
      console.log(
        `${name.padEnd(11)} median ${Math.round(median(xs))}  [${xs.map(Math.round).join(', ')}]`,
      );
  } finally {
    await meter.end().catch(() => {});
    await handle.close();
    await fresh.drop();
  }
}

await main();
