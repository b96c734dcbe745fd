import { and, eq, inArray, sum } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256Hex } from '../../../src/crypto/tokens.ts';
import { apiKeys, events, usageCounters } from '../../../src/db/schema.ts';
import { usageMonth } from '../../../src/domain/billing/usage-month.ts';
import { type Harness, startHarness } from '../../support/harness.ts';
import { storedEvents } from '../../support/stored-events.ts';

/**
 * POST /v1/events admits its key from the key cache and checks it again in the write
 * (docs/decisions/ingest.md#api-keys-and-rate-limits). Here a key is revoked in the database behind
 * the cache's back (no rotation, so no process is told) and the clock stands still, so the
 * cache keeps admitting it: only the write's own check can refuse it. On a PostgreSQL server
 * that check is a statement of the COPY's query; on PGlite a lookup just before the insert.
 */
let h: Harness;
const frozen = new Date();

beforeAll(async () => {
  h = await startHarness({}, { clock: { now: () => frozen } });
});
afterAll(() => h.close());

const send = (key: string, ids: string[], experimentId: string) =>
  h.ingest(key, {
    method: 'POST',
    url: '/v1/events',
    payload: {
      events: ids.map((id) => ({
        event_id: id,
        type: 'exposure',
        experiment_id: experimentId,
        user_id: `user-of-${id}`,
        timestamp: frozen.toISOString(),
      })),
    },
  });

/** Revokes a key as a rotation would, but tells no cache. */
async function revokeBehindTheCache(key: string): Promise<void> {
  await h.ctx.db
    .update(apiKeys)
    .set({ revokedAt: new Date() })
    .where(eq(apiKeys.keyHash, sha256Hex(key)));
}

async function storedIds(orgId: string, ids: string[]): Promise<string[]> {
  const rows = await storedEvents(h, and(eq(events.orgId, orgId), inArray(events.eventId, ids)));
  return rows.map((r) => r.eventId).sort();
}

async function metered(orgId: string): Promise<number> {
  const [row] = await h.ctx.db
    .select({ events: sum(usageCounters.events) })
    .from(usageCounters)
    .where(and(eq(usageCounters.orgId, orgId), eq(usageCounters.month, usageMonth(frozen))));
  return Number(row?.events ?? 0);
}

describe('POST /v1/events checks a cached key in its write', () => {
  it('stores nothing for a key revoked after the cache admitted it, and answers 401', async () => {
    const org = await h.org('key-in-write');
    const experimentId = await h.experiment(org.admin, { name: 'key-in-write-exp' });
    expect((await send(org.publishable, ['kw-1'], experimentId)).statusCode).toBe(202);

    await revokeBehindTheCache(org.publishable);
    // The cache still admits the key: the route's hook alone would let this write through.
    expect(h.ctx.apiKeys.cached(org.publishable)).toMatchObject({ revoked: false });

    const refused = await send(org.publishable, ['kw-2', 'kw-3'], experimentId);
    expect(refused.statusCode).toBe(401);
    expect(refused.json()).toMatchObject({
      type: '/problems/invalid-credential',
      detail: 'This API key was rotated away; use the current key of its scope',
    });
    expect(await storedIds(org.orgId, ['kw-1', 'kw-2', 'kw-3'])).toEqual(['kw-1']);
    expect(await metered(org.orgId)).toBe(1);

    // The org's other key is untouched.
    expect((await send(org.secret, ['kw-4'], experimentId)).statusCode).toBe(202);
    expect(await storedIds(org.orgId, ['kw-4'])).toEqual(['kw-4']);
    expect(await metered(org.orgId)).toBe(2);
  });

  it('refuses only the revoked key of concurrent writes of one org', async () => {
    // On PostgreSQL one org's concurrent first deliveries share a COPY: a group whose check
    // fails writes nothing, and each of its requests is then checked alone.
    const org = await h.org('key-in-write-group');
    const experimentId = await h.experiment(org.admin, { name: 'key-in-write-group-exp' });
    expect((await send(org.publishable, ['warm-p'], experimentId)).statusCode).toBe(202);
    expect((await send(org.secret, ['warm-s'], experimentId)).statusCode).toBe(202);
    await revokeBehindTheCache(org.publishable);

    const requests = Array.from({ length: 12 }, (_, i) => ({
      key: i % 2 === 0 ? org.secret : org.publishable,
      ids: [`g-${i}-a`, `g-${i}-b`, `g-${i}-c`],
    }));
    const answers = await Promise.all(requests.map((r) => send(r.key, r.ids, experimentId)));

    const kept = requests.filter((r) => r.key === org.secret).flatMap((r) => r.ids);
    const all = requests.flatMap((r) => r.ids);
    for (const [i, answer] of answers.entries())
      expect(answer.statusCode).toBe(requests[i]!.key === org.secret ? 202 : 401);
    expect(await storedIds(org.orgId, all)).toEqual([...kept].sort());
    expect(await metered(org.orgId)).toBe(2 + kept.length);
  });
});
