import { randomUUID } from 'node:crypto';
import { type SQL, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rows } from '../../src/db/connect.ts';
import { foldStatement, stretchRows, unfoldedCount } from '../../src/ingest/fold-sql.ts';
import { type Harness, startHarness } from '../support/harness.ts';

// The statements that read the log by transaction are planned here, not run: what is asserted
// is that none of them scans the whole log, whatever the statistics say about its size.

let h: Harness;

const TRANSACTIONS = 50;
const ROWS_EACH = 200;

beforeAll(async () => {
  h = await startHarness();
  const org = randomUUID();
  const experiment = randomUUID();
  // statistics taken while the log is empty, as on a new installation
  await h.ctx.db.execute(sql`analyze events`);
  // then a log that outgrew them, one transaction per statement, as acceptances write it
  for (let t = 0; t < TRANSACTIONS; t++) {
    await h.ctx.db.execute(sql`insert into events (org_id, event_id, type, experiment_id, user_id,
        variant, occurred_at, received_at, latency_ms)
      select ${org}::uuid, ${`t${t}-`} || i, 'model_call', ${experiment}::uuid, 'user-' || i,
        'control', now(), now(), i
      from generate_series(1, ${ROWS_EACH}::int) as i`);
  }
});
afterAll(() => h.close());

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  Plans?: PlanNode[];
}

async function planOf(statement: SQL): Promise<PlanNode[]> {
  const [row] = await rows<{ 'QUERY PLAN': unknown }>(
    h.ctx.db,
    sql`explain (format json) ${statement}`,
  );
  const raw = row?.['QUERY PLAN'];
  const doc = (typeof raw === 'string' ? JSON.parse(raw) : raw) as Array<{ Plan: PlanNode }>;
  const nodes: PlanNode[] = [];
  const walk = (node: PlanNode) => {
    nodes.push(node);
    for (const child of node.Plans ?? []) walk(child);
  };
  walk(doc[0]?.Plan as PlanNode);
  return nodes;
}

const scansOfTheLog = (nodes: PlanNode[]) =>
  nodes.filter((n) => n['Relation Name'] === 'events').map((n) => n['Node Type']);

describe('reading the log by transaction', () => {
  it.each([
    ['the fold', foldStatement(500)],
    ['the unfolded count (admin health, the backlog gauge)', unfoldedCount],
    ['the rows of a stretch being isolated', stretchRows([1, 2, 3])],
  ])(
    '%s reads the listed transactions through the txid index, never the whole log',
    async (_, statement) => {
      const scans = scansOfTheLog(await planOf(statement));
      expect(scans.length).toBeGreaterThan(0);
      expect(scans).not.toContain('Seq Scan');
      for (const scan of scans) expect(['Index Scan', 'Bitmap Heap Scan']).toContain(scan);
    },
  );

  it('the planned statements still read what they did: the whole queue, folded once', async () => {
    const [before] = await rows<{ n: number }>(h.ctx.db, unfoldedCount);
    expect(Number(before?.n)).toBe(TRANSACTIONS * ROWS_EACH);
    expect(await h.ctx.worker.foldAll()).toBe(TRANSACTIONS * ROWS_EACH);
    const [after] = await rows<{ n: number }>(h.ctx.db, unfoldedCount);
    expect(Number(after?.n)).toBe(0);
  });
});
