/**
 * The recorded next idea for the fold, measured before building it: append each fold's grouped
 * rows to an unindexed table and merge them into `user_day_stats` later, instead of an upsert
 * (one primary-key descent and one row update per user-day) in every fold.
 *
 * The ingest benchmark's shape: 400,000 model calls of 50,000 users (each user once every 50,000
 * events), folded 1,350 at a time (the folds' size in `ingest-throughput.bench.ts`), every fold
 * its own transaction, on the real `user_day_stats` (the server's migrations) with every user's
 * row already there. The same grouped rows feed each way of writing them:
 *
 * - `upsert`: today's fold;
 * - `append, merge every W by delete`: appended; every W events a statement deletes the appended
 *   rows, groups them and upserts the sums;
 * - `append, merge every W by truncate`: appended to one of two tables; the merge groups the full
 *   one into the upsert, then truncates it (no row-by-row delete);
 * - `append only`: no merge at all, the idea's floor;
 * - `update only`: an `update … from` the grouped rows by the primary key instead of the
 *   upsert (no tuple lock before the update), its lower bound: every row is there, so nothing
 *   is left to insert.
 *
 * Prints the database backend's CPU per event, median of ROUNDS (default 3) alternating rounds,
 * and its ratio to `upsert` in the same run.
 *
 *   ARBITER_TEST_DATABASE_URL=… npx tsx bench/server/fold-append-merge.bench.ts
 */

import { PgDialect } from 'drizzle-orm/pg-core';
import pg from 'pg';
import { foldStatement } from '../../apps/server/src/ingest/fold-sql.ts';
import { cpuSecondsOf, freshPostgres, startBenchServer } from './setup.ts';

const EVENTS = 400_000;
const USERS = 50_000;
const PER_FOLD = 1_350;

const SUMS = `0, count(*), 0, count(lat), sum(lat), count(tok), sum(tok), sum(cost), count(cost)`;
const COLUMNS = `experiment_id, day, variant, user_id, exposures, calls, errors, latency_n,
  latency_sum, tokens_n, tokens_sum, cost_sum, cost_n`;
/** The fold's own conflict clause, taken from its statement, so the two cannot drift apart. */
const ON_CONFLICT = (() => {
  const fold = new PgDialect().sqlToQuery(foldStatement(500).inlineParams()).sql;
  const clause = fold.match(
    /on conflict \(experiment_id, day, variant, user_id\)[\s\S]*?excluded\.cost_n/,
  );
  if (clause === null) throw new Error("the fold's user_day_stats upsert was not found");
  return clause[0];
})();
const GROUPED = (lo: number, hi: number) => `select x, d, v, u, ${SUMS} from fold_source
  where i >= ${lo} and i < ${hi} group by x, d, v, u`;
const MERGE_SUMS = `sum(exposures), sum(calls), sum(errors), sum(latency_n), sum(latency_sum),
  sum(tokens_n), sum(tokens_sum), sum(cost_sum), sum(cost_n)`;

interface Mode {
  name: string;
  /** Every fold's statements, then the merges' (`done` events so far, `last` for the end). */
  fold(lo: number, hi: number): string[];
  merge(done: number, last: boolean): string[];
  /** Back to no appended rows, for the next round. */
  reset(): void;
}

function appendMode(window: number | null, by: 'delete' | 'truncate'): Mode {
  let table = 0;
  let mergedAt = 0;
  const name =
    window === null ? 'append only' : `append, merge every ${window.toLocaleString()} by ${by}`;
  return {
    name,
    fold: (lo, hi) => [`insert into fold_delta_${table} (${COLUMNS}) ${GROUPED(lo, hi)}`],
    merge(done, last) {
      if (window === null || (done - mergedAt < window && !last)) return [];
      mergedAt = done;
      const full = table;
      if (by === 'truncate') table = 1 - table;
      const upsert = (from: string) => `insert into user_day_stats (${COLUMNS})
        select experiment_id, day, variant, user_id, ${MERGE_SUMS} from ${from}
        group by experiment_id, day, variant, user_id ${ON_CONFLICT}`;
      return by === 'delete'
        ? [`with moved as (delete from fold_delta_${full} returning *) ${upsert('moved')}`]
        : [upsert(`fold_delta_${full}`), `truncate fold_delta_${full}`];
    },
    reset() {
      table = 0;
      mergedAt = 0;
    },
  };
}

const modes: Mode[] = [
  {
    name: 'upsert',
    fold: (lo, hi) => [`insert into user_day_stats (${COLUMNS}) ${GROUPED(lo, hi)} ${ON_CONFLICT}`],
    merge: () => [],
    reset() {},
  },
  appendMode(50_000, 'delete'),
  appendMode(50_000, 'truncate'),
  appendMode(400_000, 'delete'),
  appendMode(400_000, 'truncate'),
  appendMode(null, 'delete'),
  {
    name: 'update only',
    fold: (lo, hi) => [
      'begin',
      // A hash join would read the whole table each fold; the upsert descends the index.
      'set local enable_hashjoin = off',
      'set local enable_mergejoin = off',
      `with g as materialized (select x, d, v, u, count(*) as c, count(lat) as ln, sum(lat) as ls,
          count(tok) as tn, sum(tok) as ts, sum(cost) as cs, count(cost) as cn
        from fold_source where i >= ${lo} and i < ${hi} group by x, d, v, u)
      update user_day_stats s set calls = s.calls + g.c, latency_n = s.latency_n + g.ln,
        latency_sum = s.latency_sum + g.ls, tokens_n = s.tokens_n + g.tn,
        tokens_sum = s.tokens_sum + g.ts, cost_sum = s.cost_sum + g.cs, cost_n = s.cost_n + g.cn
      from g where s.experiment_id = g.x and s.day = g.d and s.variant = g.v and s.user_id = g.u`,
      'commit',
    ],
    merge: () => [],
    reset() {},
  },
];

const db = await freshPostgres();
// The server's migrations make the real user_day_stats.
await (await startBenchServer(db.url)).stop();
const client = new pg.Client({ connectionString: db.url });
await client.connect();
try {
  await client.query(`create table fold_source as
    select i, gen_random_uuid() as x, date '2026-11-28' as d, 'variant-' || (i % 2) as v,
      'user-' || (i % ${USERS}) as u, (i % 997)::numeric as lat, (i % 1500)::numeric as tok,
      ((i % 300) / 1000.0)::numeric as cost
    from generate_series(0, ${EVENTS - 1}) i`);
  await client.query(`update fold_source set x = (select x from fold_source where i = 0)`);
  await client.query('create index on fold_source (i)');
  await client.query('vacuum analyze fold_source');
  for (const t of [0, 1]) {
    await client.query(`create table fold_delta_${t} (like user_day_stats including defaults)`);
  }
  const pid = (await client.query('select pg_backend_pid() as p')).rows[0].p;
  const perEvent = new Map<string, number[]>(modes.map((m) => [m.name, []]));
  for (let round = 0; round < Number(process.env.ROUNDS ?? 3); round++) {
    for (const mode of modes) {
      mode.reset();
      await client.query('truncate user_day_stats, fold_delta_0, fold_delta_1');
      // Steady state: every user's row of the day is there before the timed folds.
      await client.query(`insert into user_day_stats (${COLUMNS}) ${GROUPED(0, USERS)}`);
      await client.query('vacuum analyze user_day_stats');
      await client.query('checkpoint');
      const before = cpuSecondsOf(pid);
      for (let lo = 0; lo < EVENTS; lo += PER_FOLD) {
        const hi = Math.min(lo + PER_FOLD, EVENTS);
        for (const text of mode.fold(lo, hi)) await client.query(text);
        for (const text of mode.merge(hi, hi === EVENTS)) await client.query(text);
      }
      const after = cpuSecondsOf(pid);
      perEvent.get(mode.name)?.push(((after - before) * 1e6) / EVENTS);
    }
  }
  const median = (list: number[]) =>
    [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)] ?? Number.NaN;
  const base = median(perEvent.get('upsert') ?? []);
  for (const [name, list] of perEvent) {
    const m = median(list);
    console.log(
      `${name.padEnd(38)} ${m.toFixed(2).padStart(6)} µs/event  ×${(m / base).toFixed(2)}`,
      `  (${list.map((x) => x.toFixed(2)).join(', ')})`,
    );
  }
} finally {
  await client.end();
  await db.drop();
}
