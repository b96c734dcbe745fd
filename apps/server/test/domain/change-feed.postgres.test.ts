import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { experimentConfig, type Harness, startHarness } from '../support/harness.ts';
import { type SecondProcess, secondProcess } from '../support/second-process.ts';

/**
 * Two server processes on one PostgreSQL database: a key rotation or a config change made
 * through one reaches the other at once through LISTEN/NOTIFY (docs/decisions/operations.md#several-processes). The other
 * process's clock stands still, so its caches' 1 s revalidation never fires: whatever it
 * learns, it learned from the notification.
 */
let h: Harness;
let other: SecondProcess;

beforeAll(async () => {
  h = await startHarness();
  const frozen = new Date();
  other = await secondProcess(h, { clock: { now: () => frozen } });
});
afterAll(async () => {
  await other.close();
  await h.close();
});

/** Asks `probe` until it answers `want`, a bounded number of times (the notification is async). */
async function eventually<T>(probe: () => Promise<T>, want: T): Promise<T> {
  let last = await probe();
  for (let i = 0; i < 100 && last !== want; i++) {
    await new Promise((resolve) => setTimeout(resolve, 5));
    last = await probe();
  }
  return last;
}

function assignOnOther(key: string, experimentId: string) {
  return other.app.inject({
    method: 'POST',
    url: '/v1/assign',
    headers: { 'x-api-key': key },
    payload: { experiment_id: experimentId, user_id: 'user-1' },
  });
}

describe('changes reach every process on PostgreSQL at once', () => {
  it('a key rotated away in one process is refused by the other', async () => {
    const org = await h.org('feed-keys');
    const before = await assignOnOther(org.publishable, 'none');
    expect(before.statusCode).toBe(200);
    // The other process now holds the key as valid in its cache (and its clock never moves).
    expect((await assignOnOther(org.publishable, 'none')).statusCode).toBe(200);

    const rotated = await h.call(org.admin, {
      method: 'POST',
      url: '/v1/keys',
      payload: { scope: 'publishable' },
    });
    expect(rotated.statusCode).toBe(201);

    const status = await eventually(
      async () => (await assignOnOther(org.publishable, 'none')).statusCode,
      401,
    );
    expect(status).toBe(401);
    const refused = await assignOnOther(org.publishable, 'none');
    expect(refused.json()).toMatchObject({
      type: '/problems/invalid-credential',
      detail: 'This API key was rotated away; use the current key of its scope',
    });
    // The new key works there too, and the secret key of the org was not disturbed.
    expect((await assignOnOther(rotated.json().key, 'none')).statusCode).toBe(200);
    expect((await assignOnOther(org.secret, 'none')).statusCode).toBe(200);
  });

  it('an experiment created in one process is assigned by the other', async () => {
    const org = await h.org('feed-config');
    const first = await assignOnOther(org.publishable, 'fresh-exp');
    expect(first.json()).toMatchObject({ variant: null, reason: 'unknown_experiment' });
    const versionBefore = first.json().config_version as number;

    const created = await h.call(org.admin, {
      method: 'POST',
      url: '/v1/experiments',
      payload: experimentConfig({
        name: 'fresh-exp',
        allocation: [{ variant: 'control', weight: 100 }],
        variants: [{ key: 'control' }],
      }),
    });
    expect(created.statusCode).toBe(201);

    const variant = await eventually(
      async () => (await assignOnOther(org.publishable, 'fresh-exp')).json().variant,
      'control',
    );
    expect(variant).toBe('control');
    const config = await other.app.inject({
      method: 'GET',
      url: '/v1/config',
      headers: { 'x-api-key': org.publishable },
    });
    expect(config.json().config_version).toBe(versionBefore + 1);
  });

  it('a change in another org does not disturb this one', async () => {
    const a = await h.org('feed-a');
    const b = await h.org('feed-b');
    expect((await assignOnOther(a.publishable, 'x')).statusCode).toBe(200);
    await h.call(b.admin, { method: 'POST', url: '/v1/keys', payload: { scope: 'publishable' } });
    expect(
      await eventually(async () => (await assignOnOther(b.publishable, 'x')).statusCode, 401),
    ).toBe(401);
    expect((await assignOnOther(a.publishable, 'x')).statusCode).toBe(200);
  });
});
