import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signBusinessEvent } from '../../../src/http/business-signature.ts';
import { clerkEvent, deliverer, webhookSecret } from '../../support/clerk-webhooks.ts';
import { type Harness, startHarness } from '../../support/harness.ts';

const IDP_SECRET = webhookSecret();
let h: Harness;
let doomed: Awaited<ReturnType<Harness['org']>>;
let survivor: Awaited<ReturnType<Harness['org']>>;
let experimentId: string;
let businessSecret: string;

beforeAll(async () => {
  h = await startHarness({ ARBITER_CLERK_WEBHOOK_SECRET: IDP_SECRET });
  doomed = await h.org('org_doomed');
  survivor = await h.org('org_survivor');
  experimentId = await h.experiment(doomed.admin, { name: 'doomed-exp' });
  await h.experiment(survivor.admin, { name: 'survivor-exp' });
  businessSecret = (
    await h.call(doomed.admin, { method: 'POST', url: '/v1/webhook-secrets' })
  ).json().secret;
});
afterAll(() => h.close());

const event = (id: string, experiment: string) => ({
  event_id: id,
  type: 'exposure',
  experiment_id: experiment,
  user_id: 'u1',
  timestamp: new Date().toISOString(),
});

/** Every route a key opens, with the key that opens it; each answers 2xx while the org lives. */
function keyedCalls(org: typeof doomed, experiment: string, tag: string) {
  return [
    [
      'assign',
      org.publishable,
      { method: 'POST', url: '/v1/assign', payload: { experiment_id: experiment, user_id: 'u1' } },
    ],
    ['config', org.publishable, { method: 'GET', url: '/v1/config' }],
    [
      'events (publishable)',
      org.publishable,
      { method: 'POST', url: '/v1/events', payload: { events: [event(`${tag}-p`, experiment)] } },
    ],
    [
      'events (secret)',
      org.secret,
      { method: 'POST', url: '/v1/events', payload: { events: [event(`${tag}-s`, experiment)] } },
    ],
    [
      'import',
      org.secret,
      {
        method: 'POST',
        url: '/v1/events/import',
        headers: { 'content-type': 'application/json' },
        payload: [event(`${tag}-i`, experiment)],
      },
    ],
  ] as const;
}

async function statuses(org: typeof doomed, experiment: string, tag: string) {
  const out: Record<string, number> = {};
  for (const [name, key, options] of keyedCalls(org, experiment, tag))
    out[name] = (await h.ingest(key, options as never)).statusCode;
  return out;
}

function businessEvent(id: string) {
  const raw = JSON.stringify({
    event_id: id,
    experiment_id: experimentId,
    user_id: 'u1',
    business_metric: 'revenue',
    value: 1,
  });
  return h.app.inject({
    method: 'POST',
    url: '/v1/business-events',
    headers: {
      'content-type': 'application/json',
      'arbiter-signature': signBusinessEvent(businessSecret, raw, Math.floor(Date.now() / 1000)),
    },
    payload: raw,
  });
}

describe('an org deleted at the identity provider', () => {
  it('loses every key and its business-event secret in the deletion', async () => {
    // Alive: every credential works (and the keys sit in this process's cache).
    expect(await statuses(doomed, experimentId, 'before')).toEqual({
      assign: 200,
      config: 200,
      'events (publishable)': 202,
      'events (secret)': 202,
      import: 200,
    });
    expect((await businessEvent('biz-before')).statusCode).toBe(202);

    const deleted = await deliverer(h.app, IDP_SECRET)(
      clerkEvent(
        'organization.deleted',
        { object: 'organization', id: 'org_doomed', deleted: true },
        Date.now(),
      ),
      { msgId: 'msg_doomed_deleted' },
    );
    expect(deleted.statusCode).toBe(204);

    expect(await statuses(doomed, experimentId, 'after')).toEqual({
      assign: 401,
      config: 401,
      'events (publishable)': 401,
      'events (secret)': 401,
      import: 401,
    });
    // Every key says it is not valid because its org is gone, never that it was rotated away.
    for (const [, key, options] of keyedCalls(doomed, experimentId, 'why')) {
      const refused = await h.ingest(key, options as never);
      expect(refused.json()).toMatchObject({
        type: '/problems/invalid-credential',
        status: 401,
        detail: 'This API key is not valid: its org was deleted',
      });
      expect(refused.body).not.toMatch(/rotated/i);
    }
    const business = await businessEvent('biz-after');
    expect(business.statusCode).toBe(401);
  });

  it("leaves another org's credentials alone", async () => {
    const other = await h.experiment(survivor.admin, { name: 'survivor-exp-2' });
    expect(await statuses(survivor, other, 'survivor')).toEqual({
      assign: 200,
      config: 200,
      'events (publishable)': 202,
      'events (secret)': 202,
      import: 200,
    });
  });
});
