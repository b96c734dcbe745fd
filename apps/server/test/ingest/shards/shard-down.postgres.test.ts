import { inArray } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { events } from '../../../src/db/schema.ts';
import { freshDatabase, freshShards } from '../../support/database.ts';
import { type Harness, startHarness } from '../../support/harness.ts';
import { exposureOf, ingestProbe } from '../../support/ingest-probe.ts';
import { type StoppableCluster, startStoppableCluster } from '../../support/stoppable-cluster.ts';

// Two shards of event data: shard 0 on the shared test server, shard 1 on a PostgreSQL server
// of this test's own, stopped while the app runs. Users on shard 0 go on; users on shard 1 get
// a 503 with Retry-After, never a 202; once the server is back a retry stores the rest and the
// meter counts every event once.

let h: Harness;
let own: StoppableCluster | undefined;
let orgId: string;
let key: string;
let exp: string;
/** Users by the shard that holds them. */
const users: [string[], string[]] = [[], []];

const stopShard = () => own?.stop();
const startShard = () => own?.start();

beforeAll(async () => {
  own = await startStoppableCluster();
  const [onShared] = await freshShards(1);
  const onOwn = await freshDatabase(own.url);
  const shards = [
    onShared as NonNullable<typeof onShared>,
    { handle: onOwn, address: 'own server' },
  ];
  h = await startHarness({}, { shards });
  const org = await h.org('shard-down');
  ({ orgId, publishable: key } = org);
  exp = await h.experiment(org.admin);
  for (let i = 0; users[0].length < 3 || users[1].length < 3; i++) {
    const user = `user-${i}`;
    users[h.ctx.shards.positionOf(orgId, user) as 0 | 1].push(user);
  }
}, 120_000);

let running = true;

afterAll(async () => {
  // the harness drops the shard's database on that server: it must be up for that
  if (!running) startShard();
  await h?.close();
  own?.remove();
});

const batchOf = (prefix: string, who: string[]) =>
  who.map((u, i) => exposureOf(exp, `${prefix}-${i}`, u));

describe('a shard that is down', () => {
  it('keeps every user on the shard of their hash, and each shard folds its own', async () => {
    const probe = ingestProbe(h);
    const batch = batchOf('both', [...users[0], ...users[1]]);
    expect((await probe.send(key, batch)).statusCode).toBe(202);
    for (const [position, shard] of h.ctx.shards.all.entries()) {
      const held = await shard.db
        .select({ user: events.userId })
        .from(events)
        .where(
          inArray(
            events.eventId,
            batch.map((e) => e.event_id),
          ),
        );
      expect(held.map((r) => r.user).sort()).toEqual([...(users[position as 0 | 1] ?? [])].sort());
    }
    await h.ctx.worker.foldAll();
    expect(await probe.foldedExposures(users[1][0] as string)).toBe(1);
    expect(await probe.metered(orgId)).toBe(batch.length);
  });

  it('answers 503 with Retry-After for its users, 202 for the others, and a retry stores the rest once', async () => {
    const probe = ingestProbe(h);
    const before = await probe.metered(orgId);
    stopShard();
    running = false;
    const others = batchOf('others', users[0]);
    expect((await probe.send(key, others)).statusCode).toBe(202);
    const downOnly = await probe.send(key, batchOf('down', users[1]));
    expect(downOnly.statusCode).toBe(503);
    expect(downOnly.headers['retry-after']).toMatch(/^\d+$/);
    expect(downOnly.json().type).toMatch(/\/problems\/shard-unavailable$/);
    const mixed = batchOf('mixed', [...users[0], ...users[1]]);
    expect((await probe.send(key, mixed)).statusCode).toBe(503);
    // the part on the shard that answers is stored and metered; nothing of the other
    expect(await probe.metered(orgId)).toBe(before + others.length + users[0].length);

    const health = await h.call(null, {
      method: 'GET',
      url: '/v1/admin/health',
      headers: { 'x-arbiter-control': h.ctx.controlToken },
    });
    expect(health.statusCode).toBe(200);
    const shards = health.json().shards as Array<{
      position: number;
      reachable: boolean;
      address: string;
    }>;
    expect(shards.map((s) => [s.position, s.reachable])).toEqual([
      [0, true],
      [1, false],
    ]);
    expect(shards[0]?.address).not.toMatch(/@|postgres:\/\//);

    startShard();
    running = true;
    const retry = await probe.send(key, mixed);
    expect(retry.statusCode).toBe(202);
    expect(retry.json().duplicates).toBe(users[0].length);
    expect(await probe.storedIds(mixed.map((e) => e.event_id))).toHaveLength(mixed.length);
    expect(await probe.metered(orgId)).toBe(before + others.length + mixed.length);
  }, 120_000);
});
