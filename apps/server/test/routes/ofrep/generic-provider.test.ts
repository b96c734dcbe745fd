import type { AddressInfo } from 'node:net';
import { OFREPProvider } from '@openfeature/ofrep-provider';
import { OpenFeature } from '@openfeature/server-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from '../../support/harness.ts';
import { ingestProbe } from '../../support/ingest-probe.ts';
import { storedEventsOf } from '../../support/security-matrix.ts';

/**
 * OpenFeature's generic OFREP provider for Node, unchanged, with the real server SDK, against
 * the real server on a loopback port: 10,000 users get /v1/assign's variant, and each assigned
 * user's exposure is stored and metered once however often it is evaluated.
 */
const USERS = 10_000;
const CONCURRENCY = 32;

let h: Harness;
let acme: Awaited<ReturnType<Harness['org']>>;
let experimentId: string;

beforeAll(async () => {
  h = await startHarness({
    ARBITER_RATE_LIMIT_SECRET_PER_MINUTE: '10000000',
    ARBITER_RATE_LIMIT_PUBLISHABLE_PER_MINUTE: '10000000',
  });
  await h.app.listen({ port: 0, host: '127.0.0.1' });
  acme = await h.org('ofrep-node-provider');
  experimentId = await h.experiment(acme.admin, {
    name: 'parity',
    salt: 'parity-salt',
    bucket_count: 10_000,
    allocation: [
      { variant: 'control', weight: 30 },
      { variant: 'concise', weight: 30 },
      { variant: 'formal', weight: 30 },
    ],
    variants: [
      { key: 'control', variables: { tone: 'plain' } },
      { key: 'concise', variables: { tone: 'short' } },
      { key: 'formal', variables: { tone: 'formal', register: { level: 2 } } },
    ],
  });
  const { port } = h.app.server.address() as AddressInfo;
  await OpenFeature.setProviderAndWait(
    'ofrep',
    new OFREPProvider({
      baseUrl: `http://127.0.0.1:${port}`,
      headers: [['X-API-Key', acme.publishable]],
    }),
  );
}, 120_000);
afterAll(async () => {
  await OpenFeature.close();
  await h.close();
});

/** Runs `work` over `items`, `CONCURRENCY` at a time. */
async function pooled<T, R>(items: T[], work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await work(items[i] as T);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, lane));
  return results;
}

const users = Array.from({ length: USERS }, (_, i) => (i % 3 === 0 ? `用户-${i}` : `user ${i}`));

describe('@openfeature/ofrep-provider with @openfeature/server-sdk', () => {
  it('gives 10,000 users /v1/assign’s variant and stores each assigned one’s exposure once', async () => {
    const client = OpenFeature.getClient('ofrep');
    const assigned = await pooled(users, async (user) => {
      const res = await h.ingest(acme.secret, {
        method: 'POST',
        url: '/v1/assign',
        payload: { experiment_id: experimentId, user_id: user },
      });
      return res.json().variant as string | null;
    });
    const through = await pooled(users, (user) =>
      client.getStringDetails('parity:$variant', 'no-variant', { targetingKey: user }),
    );
    const wrong = users.filter((_, i) => {
      const want = assigned[i] ?? 'no-variant';
      const got = through[i];
      return got?.value !== want || (assigned[i] !== null && got.reason !== 'SPLIT');
    });
    expect(wrong).toEqual([]);
    const excluded = assigned.filter((v) => v === null).length;
    expect(excluded).toBeGreaterThan(800);
    expect(excluded).toBeLessThan(1200);

    // The object flag and a variable, for some of them: the same variant, no second exposure.
    const some = users.slice(0, 300);
    const objects = await pooled(some, (user) =>
      client.getObjectDetails('parity', {}, { targetingKey: user }),
    );
    for (const [i, details] of objects.entries()) {
      if (assigned[i] === null) continue;
      expect(details.variant).toBe(assigned[i]);
      expect(details.flagMetadata.experimentId).toBe(experimentId);
    }
    const formal = users.findIndex((_, i) => assigned[i] === 'formal');
    const tone = await client.getStringValue('parity:tone', '?', {
      targetingKey: users[formal] as string,
    });
    expect(tone).toBe('formal');

    const probe = ingestProbe(h);
    await h.ctx.serverExposures.flush();
    expect(await storedEventsOf(h, experimentId)).toBe(USERS - excluded);
    expect(await probe.metered(acme.orgId)).toBe(USERS - excluded);
  }, 600_000);

  it('reports an unknown flag and a missing targeting key with their codes', async () => {
    const client = OpenFeature.getClient('ofrep');
    const unknown = await client.getStringDetails('nope', 'x', { targetingKey: 'u-1' });
    expect(unknown).toMatchObject({ value: 'x', reason: 'ERROR', errorCode: 'FLAG_NOT_FOUND' });
    const noKey = await client.getStringDetails('parity:$variant', 'x', {});
    expect(noKey).toMatchObject({ value: 'x', errorCode: 'TARGETING_KEY_MISSING' });
  });
});
