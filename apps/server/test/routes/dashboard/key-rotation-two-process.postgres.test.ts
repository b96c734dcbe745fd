import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clerkEvent, deliverer, webhookSecret } from '../../support/clerk-webhooks.ts';
import { type Harness, startHarness } from '../../support/harness.ts';
import { type SecondProcess, secondProcess } from '../../support/second-process.ts';

const IDP_SECRET = webhookSecret();
let h: Harness;
let other: SecondProcess;
let org: Awaited<ReturnType<Harness['org']>>;
let experimentId: string;

beforeAll(async () => {
  h = await startHarness({ ARBITER_CLERK_WEBHOOK_SECRET: IDP_SECRET });
  other = await secondProcess(h);
  org = await h.org('org_two_process');
  experimentId = await h.experiment(org.admin, { name: 'two-process' });
});
afterAll(async () => {
  await other.close();
  await h.close();
});

let sequence = 0;
/** POST /v1/events to the other process with `key`: its status. */
async function eventOnOther(key: string): Promise<number> {
  sequence += 1;
  const res = await other.app.inject({
    method: 'POST',
    url: '/v1/events',
    headers: { 'x-api-key': key },
    payload: {
      events: [
        {
          event_id: `e-${sequence}`,
          type: 'exposure',
          experiment_id: experimentId,
          user_id: `u-${sequence}`,
          timestamp: new Date().toISOString(),
        },
      ],
    },
  });
  return res.statusCode;
}

/** The other process has the key in its cache: an assign there admitted it a moment ago. */
async function warmOther(key: string): Promise<void> {
  const res = await other.app.inject({
    method: 'POST',
    url: '/v1/assign',
    headers: { 'x-api-key': key },
    payload: { experiment_id: experimentId, user_id: 'warm' },
  });
  expect(res.statusCode).toBe(200);
}

describe('a key rotated on one process', () => {
  it('is refused by the other process from the 201 on: 0 of 1,000 writes accepted', async () => {
    let current = org.secret;
    const statuses: number[] = [];
    for (let round = 0; round < 100; round += 1) {
      await warmOther(current);
      const rotated = await h.call(org.admin, {
        method: 'POST',
        url: '/v1/keys',
        payload: { scope: 'secret' },
      });
      expect(rotated.statusCode).toBe(201);
      const old = current;
      current = rotated.json().key;
      statuses.push(...(await Promise.all(Array.from({ length: 10 }, () => eventOnOther(old)))));
    }
    const accepted = statuses.filter((s) => s !== 401).length;
    expect({ requests: statuses.length, accepted }).toEqual({ requests: 1000, accepted: 0 });
    // The new key works there.
    expect(await eventOnOther(current)).toBe(202);
  });
});

describe('an org deleted through one process', () => {
  it("has its keys refused by the other process's write paths at once", async () => {
    const victim = await h.org('org_two_process_deleted');
    const exp = await h.experiment(victim.admin, { name: 'doomed' });
    let imported = 0;
    const importOnOther = () =>
      other.app.inject({
        method: 'POST',
        url: '/v1/events/import',
        headers: { 'x-api-key': victim.secret, 'content-type': 'application/json' },
        payload: [
          {
            event_id: `i-${imported++}`,
            type: 'exposure',
            experiment_id: exp,
            user_id: 'u',
            timestamp: new Date().toISOString(),
          },
        ],
      });
    expect((await importOnOther()).statusCode).toBe(200);
    const deleted = await deliverer(h.app, IDP_SECRET)(
      clerkEvent(
        'organization.deleted',
        { object: 'organization', id: 'org_two_process_deleted', deleted: true },
        Date.now(),
      ),
      { msgId: 'msg_two_process_deleted' },
    );
    expect(deleted.statusCode).toBe(204);
    expect((await importOnOther()).statusCode).toBe(401);
  });
});
