/**
 * How the fold and the count of unfolded events (the admin health view, the backlog gauge) find
 * the queued transactions' rows in a large log, against the plain join of the queue with the log
 * that they were before (the reference, rebuilt here from the current statements). The log holds
 * LOG_TRANSACTIONS (default 5,000) transactions of 200 events, 15 of them queued; each statement
 * runs ROUNDS (default 5) times in a transaction rolled back, the two forms alternating, first
 * with statistics taken while the log was empty (autovacuum off for the log, as on a log that
 * outgrew its statistics), then with fresh ones. Prints medians and the ratio reference / now.
 *
 *   npx tsx bench/server/fold-read-plan.bench.ts
 */
import { PgDialect } from 'drizzle-orm/pg-core';
import pg from 'pg';
import { foldStatement, unfoldedCount } from '../../apps/server/src/ingest/fold-sql.ts';
import { freshPostgres, startBenchServer } from './setup.ts';

const dialect = new PgDialect();
const TRANSACTIONS = Number(process.env.LOG_TRANSACTIONS ?? 5000);
const ROUNDS = Number(process.env.ROUNDS ?? 5);

/** `text` with `from` replaced, refusing a statement that no longer has it. */
function rewritten(text: string, from: string, to: string): string {
  const out = text.replace(from, to);
  if (out === text) throw new Error(`the statement no longer reads: ${from}`);
  return out;
}

const fold = dialect.sqlToQuery(foldStatement(500).inlineParams()).sql;
const count = dialect.sqlToQuery(unfoldedCount).sql;
const forms = {
  fold: {
    now: fold,
    join: rewritten(
      fold,
      'events e\n      where e.txid = any(array(select txid from claimed)) and',
      'claimed c join events e on e.txid = c.txid where',
    ),
  },
  'unfolded count': {
    now: count,
    join: rewritten(
      count,
      'from events e where e.txid = any(array(select txid from ingest_pending))',
      'from ingest_pending p join events e on e.txid = p.txid',
    ),
  },
};

const db = await freshPostgres();
const bench = await startBenchServer(db.url);
await bench.stop(); // the schema only
const client = new pg.Client({ connectionString: db.url });
await client.connect();
try {
  await client.query('alter table events set (autovacuum_enabled = false)');
  await client.query('analyze events');
  const orgId = (await client.query('select id from orgs limit 1')).rows[0].id;
  for (let t = 0; t < TRANSACTIONS; t++) {
    await client.query(
      `insert into events (org_id, event_id, type, experiment_id, user_id, variant, occurred_at,
         received_at, latency_ms)
       select $1::uuid, $2 || i, 'model_call', $3::uuid, 'user-' || i, 'control', now(), now(), i
       from generate_series(1, 200) as i`,
      [orgId, `t${t}-`, bench.experimentId],
    );
  }
  // folded up to the last 15 acceptances
  await client.query(`delete from ingest_pending where txid not in (
    select txid from ingest_pending order by txid desc limit 15)`);
  const timed = async (text: string) => {
    await client.query('begin');
    const started = performance.now();
    await client.query(text);
    const ms = performance.now() - started;
    await client.query('rollback');
    return ms;
  };
  const median = (list: number[]) => list.sort((a, b) => a - b)[Math.floor(list.length / 2)] ?? 0;
  console.log(`log: ${TRANSACTIONS * 200} events in ${TRANSACTIONS} transactions, 15 queued`);
  for (const stats of ['stale', 'fresh']) {
    if (stats === 'fresh') await client.query('analyze events');
    for (const [name, form] of Object.entries(forms)) {
      const now: number[] = [];
      const join: number[] = [];
      for (let r = 0; r < ROUNDS; r++) {
        join.push(await timed(form.join));
        now.push(await timed(form.now));
      }
      console.log(
        `${stats} statistics, ${name}: join ${median(join).toFixed(1)} ms, now ${median(now).toFixed(1)} ms, ratio ${(median(join) / median(now)).toFixed(1)}x`,
      );
    }
  }
} finally {
  await client.end();
  await db.drop();
}
