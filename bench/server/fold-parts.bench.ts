/**
 * The fold's parts on a steady state (every user-day row already there): 50,000 users folded
 * through the API, then PER_FOLD (default 2,500) events for the same users in transactions of
 * 100, folded by the fold's statement, by the statement without its `call_value_counts` upsert
 * and without its `user_day_stats` upsert, each rolled back, alternating (ROUNDS, default 8).
 * Prints the fold backend's own CPU per event; EXPLAIN=1 also prints the full fold's plan.
 *
 *   PER_FOLD=20000 ROUNDS=6 npx tsx bench/server/fold-parts.bench.ts
 */

import { PgDialect } from 'drizzle-orm/pg-core';
import pg from 'pg';
import { foldStatement } from '../../apps/server/src/ingest/fold-sql.ts';
import { modelCallsForUsers } from '../../apps/server/test/support/builders.ts';
import { cpuSecondsOf, freshPostgres, startBenchServer } from './setup.ts';

const dialect = new PgDialect();
const db = await freshPostgres();
const bench = await startBenchServer(db.url);
const client = new pg.Client({ connectionString: db.url });
await client.connect();
const USERS = 50_000;
try {
  let next = 0;
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (next < USERS / 100) {
        const b = next++;
        const events = modelCallsForUsers(bench.experimentId, 100, {
          prefix: `w-${b}`,
          userOf: (i) => `user-${b * 100 + i}`,
        });
        const r = await fetch(`${bench.server.url}/v1/events`, {
          method: 'POST',
          headers: { 'x-api-key': bench.secretKey, 'content-type': 'application/json' },
          body: JSON.stringify({ events }),
        });
        if (r.status !== 202) throw new Error(String(r.status));
      }
    }),
  );
  for (;;) {
    const { rows } = await client.query('select count(*)::int as n from ingest_pending');
    if (rows[0].n === 0) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  await bench.stop();
  // steady state: 25 transactions of 100 events for users already folded today
  const PER_FOLD = Number(process.env.PER_FOLD ?? 2500);
  for (let t = 0; t < PER_FOLD / 100; t++) {
    await client.query(`insert into events (org_id, event_id, type, experiment_id, user_id, variant, occurred_at, received_at, latency_ms, input_tokens, output_tokens, model)
      select org_id, 'again-' || event_id, type, experiment_id, user_id, variant, occurred_at, received_at, latency_ms, input_tokens, output_tokens, model
      from events where event_id like 'w-%' order by event_id limit 100 offset ${t * 100}`);
  }
  const full = dialect.sqlToQuery(foldStatement(500).inlineParams()).sql;
  const noValues = full.replace(/value_counts as \([\s\S]*?\n {4}\),\n {4}business/, 'business');
  if (noValues === full) throw new Error('no value_counts cut');
  const noStats = full.replace(/stats as \([\s\S]*?\n {4}\),\n {4}value_counts/, 'value_counts');
  if (noStats === full) throw new Error('no stats cut');
  const pid = (await client.query('select pg_backend_pid() as p')).rows[0].p;
  const variants: Record<string, string> = { full, noValues, noStats };
  const sums: Record<string, number[]> = { full: [], noValues: [], noStats: [] };
  if (process.env.EXPLAIN) {
    await client.query('begin');
    const { rows } = await client.query(`explain (analyze, buffers) ${full}`);
    console.log(rows.map((r) => r['QUERY PLAN']).join('\n'));
    await client.query('rollback');
  }
  for (let round = 0; round < Number(process.env.ROUNDS ?? 8); round++) {
    for (const [name, text] of Object.entries(variants)) {
      await client.query('begin');
      const before = cpuSecondsOf(pid);
      const { rows } = await client.query(text);
      const after = cpuSecondsOf(pid);
      await client.query('rollback');
      sums[name]?.push(((after - before) * 1e6) / Number(rows[0].events));
    }
  }
  for (const [name, list] of Object.entries(sums)) {
    list.sort((a, b) => a - b);
    console.log(name, 'backend CPU µs/event, sorted:', list.map((x) => x.toFixed(2)).join(' '));
  }
} finally {
  await client.end();
  await db.drop();
}
