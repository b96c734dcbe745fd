import { count, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storeScores } from '../../../src/analysis/judge/judge-metering.ts';
import { sampleUnscored } from '../../../src/analysis/judge/judge-sample.ts';
import { purgeExpiredEvents } from '../../../src/analysis/retention/retention.ts';
import type { DatabaseHandle } from '../../../src/db/connect.ts';
import { events, judgeScores } from '../../../src/db/schema.ts';
import { usageMonth } from '../../../src/domain/billing/usage-month.ts';
import { exportLines } from '../../../src/domain/events-export/export-lines.ts';
import { modelTextReader } from '../../../src/domain/events-export/model-text.ts';
import { utcDay } from '../../../src/kernel/utc-day.ts';
import { freshDatabase, freshShards } from '../../support/database.ts';
import { type Harness, startHarness } from '../../support/harness.ts';
import { exposureOf, ingestProbe } from '../../support/ingest-probe.ts';
import { modelCall } from '../../support/judge-fixtures.ts';

// Readers of event data over two shards: each shard holds some of the users, and what the
// dashboard, the platform owner, the export, the judge and the nightly retention see is what
// one database holding the same rows gives.

let h: Harness;
let org: Awaited<ReturnType<Harness['org']>>;
let exp: string;
const USERS = 40;
/** Model calls of users on both shards at one instant: the order rests on the ids' bytes. */
const CALLS = 24;
const tied = new Date();
let day: string;
/** The same rows in one database: what the readers must give over two shards. */
let oneDatabase: DatabaseHandle;

async function eventsPerShard(): Promise<number[]> {
  return Promise.all(
    h.ctx.shards.all.map(async (s) => {
      const [row] = await s.db.select({ n: count() }).from(events);
      return Number(row?.n ?? 0);
    }),
  );
}

beforeAll(async () => {
  h = await startHarness({}, { shards: await freshShards(2) });
  org = await h.org('shard-readers');
  exp = await h.experiment(org.admin);
  const batch = Array.from({ length: USERS }, (_, i) => exposureOf(exp, `r-${i}`, `u-${i}`));
  expect((await ingestProbe(h).send(org.publishable, batch)).statusCode).toBe(202);
  // ids whose byte order differs from a locale's: upper before lower case, ASCII before "é"
  const ids = ['Call', 'call', 'éclair'];
  const calls = Array.from({ length: CALLS }, (_, i) =>
    modelCall(exp, `${ids[i % 3]}-${i}`, `u-${i}`, 'control', 0.5, tied.toISOString()),
  );
  expect((await ingestProbe(h).send(org.secret, calls)).statusCode).toBe(202);
  await h.ctx.worker.foldAll();
  day = utcDay(tied);
  oneDatabase = await freshDatabase();
  for (const shard of h.ctx.shards.all) {
    const held = await shard.db.select().from(events).where(eq(events.orgId, org.orgId));
    await oneDatabase.db.insert(events).values(held);
  }
}, 120_000);
afterAll(async () => {
  await oneDatabase?.close();
  await h?.close();
});

/** Users of `rows` by the shard that holds them. */
const shardsOf = (rows: Array<{ userId: string }>) =>
  new Set(rows.map((r) => h.ctx.shards.positionOf(org.orgId, r.userId)));

describe('readers over two shards', () => {
  it('stores the users on both shards, none in the control database', async () => {
    const perShard = await eventsPerShard();
    expect(perShard.reduce((a, b) => a + b, 0)).toBe(USERS + CALLS);
    expect(perShard.every((n) => n > 0)).toBe(true);
    const [control] = await h.ctx.db.select({ n: count() }).from(events);
    expect(Number(control?.n)).toBe(0);
  });

  it('the traffic and live views and the platform overview count every shard', async () => {
    const traffic = await h.call(org.admin, {
      method: 'GET',
      url: `/v1/experiments/${exp}/traffic`,
    });
    const days = traffic.json().days as Array<{ exposures: Record<string, number> }>;
    const exposures = days.flatMap((d) => Object.values(d.exposures)).reduce((a, b) => a + b, 0);
    expect(exposures).toBe(USERS);
    const overview = await h.app.inject({
      method: 'GET',
      url: '/v1/admin/overview',
      headers: { 'x-arbiter-control': h.ctx.controlToken },
    });
    const perDay = overview.json().events_per_day as Array<{ events: number }>;
    expect(perDay.reduce((a, d) => a + d.events, 0)).toBe(USERS + CALLS);
  });

  it('the events export is the one database’s, byte for byte, in the same order', async () => {
    const res = await h.ingest(org.secret, {
      method: 'GET',
      url: `/v1/events/export?experiment=${exp}&day=${day}`,
    });
    expect(res.statusCode).toBe(200);
    let alone = '';
    const scope = { orgId: org.orgId, experimentId: exp, day };
    for await (const line of exportLines(
      { all: [oneDatabase] },
      scope,
      modelTextReader(h.ctx.modelText),
    ))
      alone += line;
    expect(res.body).toBe(alone);
    const lines = res.body.trimEnd().split('\n');
    const users = lines.map((l) => ({ userId: JSON.parse(l).user_id as string }));
    expect(shardsOf(users)).toEqual(new Set([0, 1]));
    const tiedIds = lines.map((l) => JSON.parse(l).event_id as string).filter((id) => /-/.test(id));
    expect(tiedIds.filter((id) => !id.startsWith('r-'))).toHaveLength(CALLS);
  });

  it('judge sampling draws what one database draws, and scores land on their user’s shard', async () => {
    const target = { orgId: org.orgId, experimentId: exp };
    const sample = await sampleUnscored(h.ctx.shards, target, 'quality', 10);
    expect(sample).toEqual(await sampleUnscored({ all: [oneDatabase] }, target, 'quality', 10));
    expect(sample).toHaveLength(10);
    expect(shardsOf(sample)).toEqual(new Set([0, 1]));
    const month = usageMonth(new Date());
    const rows = sample.map((c) => ({
      ...target,
      metric: 'quality',
      eventId: c.eventId,
      userId: c.userId,
      variant: c.variant,
      day,
      score: 0.5,
    }));
    const org1 = { orgId: org.orgId, month, allowance: 1_000 };
    const stored = await storeScores(h.ctx.db, h.ctx.shards, org1, rows);
    expect(stored).toMatchObject({ stored: 10, overAllowance: 0, unstored: null });
    for (const [position, shard] of h.ctx.shards.all.entries()) {
      const held = await shard.db.select().from(judgeScores);
      expect(held.map((r) => r.eventId).sort()).toEqual(
        rows
          .filter((r) => h.ctx.shards.positionOf(org.orgId, r.userId) === position)
          .map((r) => r.eventId)
          .sort(),
      );
    }
    // scored calls leave the sample, on both shards
    const next = await sampleUnscored(h.ctx.shards, target, 'quality', CALLS);
    expect(next.map((c) => c.eventId).sort()).toEqual(
      (await sampleUnscored({ all: [oneDatabase] }, target, 'quality', CALLS))
        .map((c) => c.eventId)
        .filter((id) => !rows.some((r) => r.eventId === id))
        .sort(),
    );
  });

  it('retention deletes expired raw events on every shard', async () => {
    // eight days on, the free plan's 7-day retention has expired today's events
    expect(await purgeExpiredEvents(h.ctx, new Date(Date.now() + 8 * 86_400_000))).toBe(
      USERS + CALLS,
    );
    expect(await eventsPerShard()).toEqual([0, 0]);
  });
});
