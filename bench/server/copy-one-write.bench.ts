/**
 * The acceptance's COPY sent two ways, alternating each round (ROUNDS, default 5): by
 * pg-copy-streams (the query, then after the server's CopyInResponse the CopyData header, the
 * rows and CopyDone, each its own socket write), and by `CopyInOneWrite` (all four messages in
 * one write). Prints, per way, this process's CPU and the backend's (from /proc) per event, and
 * the write's wall time, for batches of 100 events (BENCH_BATCH), with CONCURRENCY connections
 * writing at once (default 4: the ingest benchmark's shape, several writes in flight).
 *
 *   npx tsx bench/server/copy-one-write.bench.ts
 */
import pg from 'pg';
import { eventsAsCopyText } from '../../apps/server/src/ingest/copy-text.ts';
import { EVENT_COLUMN_LIST } from '../../apps/server/src/ingest/event-columns.ts';
import { modelCallsForUsers } from '../../apps/server/test/support/builders.ts';
import { bareCopy } from './bare-copy.ts';
import { cpuSecondsOf, freshPostgres, startBenchServer } from './setup.ts';

const BATCH = Number(process.env.BENCH_BATCH ?? 100);
const CONCURRENCY = Number(process.env.CONCURRENCY ?? 4);
const TOTAL = 80_000;
const WAYS = ['pg-copy-streams', 'one write'] as const;
type Way = (typeof WAYS)[number];

const db = await freshPostgres();
const bench = await startBenchServer(db.url);
await bench.stop(); // schema only; nothing folds while we measure
const clients = Array.from(
  { length: CONCURRENCY },
  () => new pg.Client({ connectionString: db.url }),
);
await Promise.all(clients.map((c) => c.connect()));

try {
  const first = clients[0] as pg.Client;
  const orgId = (await first.query('select id from orgs limit 1')).rows[0].id;
  const pids = await Promise.all(
    clients.map(async (c) => (await c.query('select pg_backend_pid() as p')).rows[0].p as number),
  );
  const now = new Date().toISOString();
  let seq = 0;
  const payload = () =>
    eventsAsCopyText(
      orgId,
      modelCallsForUsers(bench.experimentId, BATCH, {
        prefix: `c${seq++}`,
        userOf: (i) => `user-${i}`,
      }).map((e) => ({ ...e, variant: 'control', received_at: now, is_test: false })) as never,
    );
  const text = `copy events (${EVENT_COLUMN_LIST}) from stdin; insert into usage_counters (org_id, month, shard, events) values ('${orgId}', '2026-11', 0, ${BATCH}) on conflict (org_id, month, shard) do update set events = usage_counters.events + excluded.events`;
  const results = new Map<Way, { node: number[]; backend: number[]; wall: number[] }>(
    WAYS.map((w) => [w, { node: [], backend: [], wall: [] }]),
  );
  const backendCpu = () => pids.reduce((sum, pid) => sum + cpuSecondsOf(pid), 0);
  for (let round = 0; round < Number(process.env.ROUNDS ?? 5); round++) {
    for (const way of round % 2 === 0 ? WAYS : [...WAYS].reverse()) {
      const perClient = Array.from({ length: CONCURRENCY }, () =>
        Array.from({ length: TOTAL / BATCH / CONCURRENCY }, payload),
      );
      const backendBefore = backendCpu();
      const nodeBefore = process.cpuUsage();
      const start = performance.now();
      await Promise.all(
        clients.map(async (c, i) => {
          for (const rows of perClient[i] ?? [])
            await bareCopy(c, text, rows, { oneWrite: way === 'one write' });
        }),
      );
      const wall = performance.now() - start;
      const node = process.cpuUsage(nodeBefore);
      const r = results.get(way);
      r?.node.push((node.user + node.system) / TOTAL);
      r?.backend.push(((backendCpu() - backendBefore) * 1e6) / TOTAL);
      r?.wall.push((wall * 1000) / (TOTAL / BATCH));
    }
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
  console.log(`${TOTAL} events a round, batches of ${BATCH}, ${CONCURRENCY} connections`);
  for (const [way, r] of results)
    console.log(
      `${way.padEnd(16)} node CPU µs/event ${median(r.node).toFixed(2)} (${r.node.map((x) => x.toFixed(2)).join(' ')})` +
        ` | backend ${median(r.backend).toFixed(2)} (${r.backend.map((x) => x.toFixed(2)).join(' ')})` +
        ` | µs a write ${median(r.wall).toFixed(0)}`,
    );
} finally {
  await Promise.all(clients.map((c) => c.end()));
  await db.drop();
}
