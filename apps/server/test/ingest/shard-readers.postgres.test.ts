import { count } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { purgeExpiredEvents } from '../../src/analysis/retention.ts';
import { events } from '../../src/db/schema.ts';
import { freshShards } from '../support/database.ts';
import { type Harness, startHarness } from '../support/harness.ts';
import { exposureOf, ingestProbe } from '../support/ingest-probe.ts';

// Readers of event data over two shards: each shard holds some of the users, and what the
// dashboard, the platform owner and the nightly retention see is the sum over both.

let h: Harness;
let org: Awaited<ReturnType<Harness['org']>>;
let exp: string;
const USERS = 40;

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
  await h.ctx.worker.foldAll();
}, 120_000);
afterAll(() => h?.close());

describe('readers over two shards', () => {
  it('stores the users on both shards, none in the control database', async () => {
    const perShard = await eventsPerShard();
    expect(perShard.reduce((a, b) => a + b, 0)).toBe(USERS);
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
    expect(perDay.reduce((a, d) => a + d.events, 0)).toBe(USERS);
  });

  it('retention deletes expired raw events on every shard', async () => {
    // eight days on, the free plan's 7-day retention has expired today's events
    expect(await purgeExpiredEvents(h.ctx, new Date(Date.now() + 8 * 86_400_000))).toBe(USERS);
    expect(await eventsPerShard()).toEqual([0, 0]);
  });
});
