import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { AppendResult, EventLog } from '../../src/ingest/event-log.ts';
import { FoldWorker } from '../../src/ingest/fold-worker.ts';
import { PostgresEventLog } from '../../src/ingest/postgres-event-log.ts';
import { exposureOf, type TwoOrgs, twoOrgs } from '../support/ingest-probe.ts';

// The event log wakes its own fold: acceptance appends and calls nothing else.

// assigned in beforeAll
let { h, probe, acme, exp } = {} as TwoOrgs;

beforeAll(async () => {
  ({ h, probe, acme, exp } = await twoOrgs('log'));
});
afterAll(() => h.close());

describe('the event log', () => {
  it('tells its listeners of an append that stored something, not of a retry', async () => {
    let heard = 0;
    h.ctx.eventLog.onAppend(() => heard++);
    const batch = [exposureOf(exp, 'log-1', 'log-user'), exposureOf(exp, 'log-2', 'log-user')];
    expect((await probe.send(acme.publishable, batch)).statusCode).toBe(202);
    expect(heard).toBe(1);
    expect((await probe.send(acme.publishable, batch)).statusCode).toBe(202);
    expect(heard).toBe(1);
  });

  it('says a fold of the database log that claimed its whole span may have more behind it', async () => {
    // The database log itself, over this harness's database, whatever log the app uses (on
    // shards or Kafka the same tables are there, and nothing else folds them here).
    const log = new PostgresEventLog(h.ctx.db);
    while ((await log.fold(500)).events > 0) {}
    for (let i = 0; i < 3; i++) {
      // each statement its own transaction: one queued acceptance each
      await h.ctx.db.execute(sql`insert into events (org_id, event_id, type, experiment_id,
          user_id, variant, occurred_at, received_at)
        values (${acme.orgId}::uuid, ${`span-${i}`}, 'exposure', ${exp}::uuid, ${`span-user-${i}`},
          'control', now(), now())`);
    }
    expect(await log.fold(2)).toMatchObject({ events: 2, more: true });
    expect(await log.fold(2)).toMatchObject({ events: 1, more: false });
  });

  it('wakes an idle fold worker at once, without waiting for its poll', async () => {
    const listeners: Array<() => void> = [];
    const appended: AppendResult = { appended: ['e'], duplicates: [], conflicts: [], refused: [] };
    let folds = 0;
    const log: EventLog = {
      append: async () => {
        for (const listener of listeners) listener();
        return appended;
      },
      fold: async () => {
        folds++;
        return { events: 0, quarantined: [] };
      },
      depth: async () => 0,
      onAppend: (listener) => listeners.push(listener),
    };
    const worker = new FoldWorker(log);
    worker.start();
    try {
      await vi.waitFor(() => expect(folds).toBe(1));
      // Idle now, for a 250 ms poll; the append must end the wait well before it.
      await new Promise((resolve) => setTimeout(resolve, 20));
      await log.append({ orgId: 'o', events: [], month: '2026-11', allowance: null });
      await vi.waitFor(() => expect(folds).toBe(2), { timeout: 150, interval: 5 });
    } finally {
      await worker.stop();
    }
  });
});
