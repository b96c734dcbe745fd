/**
 * PostgreSQL's CPU per event for the acceptance write (COPY into `events` and the meter, one
 * transaction, as `CopyEventStore` sends it) by how many requests of 100 events one write
 * carries: 1 (no group commit), 2, 4 and 10. The backend's own CPU, from /proc, alternating the
 * four sizes each round (ROUNDS, default 3).
 *
 *   npx tsx bench/server/copy-write-cpu.bench.ts
 */
import pg from 'pg';
import { eventsAsCopyText } from '../../apps/server/src/ingest/copy-text.ts';
import { EVENT_COLUMN_LIST } from '../../apps/server/src/ingest/event-columns.ts';
import { modelCallsForUsers } from '../../apps/server/test/support/builders.ts';
import { bareCopy } from './bare-copy.ts';
import { cpuSecondsOf, freshPostgres, startBenchServer } from './setup.ts';

const db = await freshPostgres();
const bench = await startBenchServer(db.url);
await bench.stop(); // schema only; nothing folds while we measure
const client = new pg.Client({ connectionString: db.url });
await client.connect();
try {
  const orgId = (await client.query('select id from orgs limit 1')).rows[0].id;
  const pid = (await client.query('select pg_backend_pid() as p')).rows[0].p;
  const now = new Date().toISOString();
  let seq = 0;
  const events = (n: number) =>
    modelCallsForUsers(bench.experimentId, n, {
      prefix: `c${seq++}`,
      userOf: (i) => `user-${i}`,
    }).map((e) => ({ ...e, variant: 'control', received_at: now, is_test: false }));
  const TOTAL = 40_000;
  const results: Record<number, number[]> = { 1: [], 2: [], 4: [], 10: [] };
  for (let round = 0; round < Number(process.env.ROUNDS ?? 3); round++) {
    for (const per of [1, 2, 4, 10]) {
      const writes = TOTAL / (100 * per);
      const payloads = Array.from({ length: writes }, () =>
        eventsAsCopyText(orgId, events(100 * per) as never),
      );
      const before = cpuSecondsOf(pid);
      for (const rows of payloads) {
        await bareCopy(
          client,
          `copy events (${EVENT_COLUMN_LIST}) from stdin; insert into usage_counters (org_id, month, shard, events) values ('${orgId}', '2026-11', ${seq % 16}, ${100 * per}) on conflict (org_id, month, shard) do update set events = usage_counters.events + excluded.events`,
          rows,
        );
      }
      results[per]?.push(((cpuSecondsOf(pid) - before) * 1e6) / TOTAL);
    }
  }
  for (const [per, list] of Object.entries(results))
    console.log(
      `${per} request(s) of 100 a write: backend CPU µs/event`,
      list.map((x) => x.toFixed(2)).join(' '),
    );
} finally {
  await client.end();
  await db.drop();
}
