import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { events } from '../../../src/db/schema.ts';
import { signBusinessEvent } from '../../../src/http/business-signature.ts';
import { type Harness, startHarness } from '../../support/harness.ts';

let h: Harness;
let acme: Awaited<ReturnType<Harness['org']>>;
let exp: string;
let secret: string;

beforeAll(async () => {
  h = await startHarness();
  acme = await h.org('acme');
  exp = await h.experiment(acme.admin, { name: 'biz' });
  secret = (await h.call(acme.admin, { method: 'POST', url: '/v1/webhook-secrets' })).json().secret;
});
afterAll(() => h.close());

const nowSeconds = () => Math.floor(Date.now() / 1000);
function post(body: object, sign: (raw: string) => string | undefined) {
  const raw = JSON.stringify(body);
  const signature = sign(raw);
  return h.app.inject({
    method: 'POST',
    url: '/v1/business-events',
    headers: {
      'content-type': 'application/json',
      ...(signature === undefined ? {} : { 'arbiter-signature': signature }),
    },
    payload: raw,
  });
}
const outcome = (id: string) => ({
  event_id: id,
  experiment_id: exp,
  user_id: 'carol',
  business_metric: 'revenue',
  value: 42,
});

describe('POST /v1/business-events', () => {
  it('accepts a correctly signed outcome, stores it and meters it', async () => {
    const before = (await h.call(acme.admin, { method: 'GET', url: '/v1/usage' })).json().events
      .used;
    const res = await post(outcome('biz-1'), (raw) => signBusinessEvent(secret, raw, nowSeconds()));
    expect(res.statusCode).toBe(202);
    expect(res.json()).toMatchObject({ accepted: 1, event_id: 'biz-1' });
    await h.ctx.worker.foldAll();
    const [row] = await h.ctx.db.select().from(events).where(eq(events.eventId, 'biz-1'));
    expect(row).toMatchObject({
      type: 'business_event',
      businessMetric: 'revenue',
      value: 42,
      userId: 'carol',
    });
    expect((await h.call(acme.admin, { method: 'GET', url: '/v1/usage' })).json().events.used).toBe(
      before + 1,
    );
  });

  it('counts a redelivery without event_id once', async () => {
    const body = {
      experiment_id: exp,
      user_id: 'dave',
      business_metric: 'conversion',
      value: 1,
      timestamp: new Date(Date.now() - 2 * 86_400_000).toISOString(),
    };
    const first = await post(body, (raw) => signBusinessEvent(secret, raw, nowSeconds()));
    const again = await post(body, (raw) => signBusinessEvent(secret, raw, nowSeconds()));
    expect(first.json().event_id).toBe(again.json().event_id);
    await h.ctx.worker.foldAll();
    const rows = await h.ctx.db.select().from(events).where(eq(events.userId, 'dave'));
    expect(rows).toHaveLength(1);
  });

  it.each([
    [
      'no signature',
      () => undefined,
      'Business event refused: the Arbiter-Signature header is missing',
    ],
    [
      'a malformed header',
      () => 'sha256=abc',
      'Business event refused: the Arbiter-Signature header is not "t=<unix seconds>,v1=<hex>"',
    ],
    [
      'another secret',
      (raw: string) => signBusinessEvent('whsec_wrong', raw, nowSeconds()),
      'Business event refused: the signature does not match the body',
    ],
    [
      'a stale timestamp',
      (raw: string) => signBusinessEvent(secret, raw, nowSeconds() - 301),
      'Business event refused: the signature timestamp is more than 300 seconds from now',
    ],
    [
      'a body changed after signing',
      (raw: string) => signBusinessEvent(secret, raw.replace('42', '43'), nowSeconds()),
      'Business event refused: the signature does not match the body',
    ],
  ])('answers 401 for %s and stores nothing', async (_label, sign, detail) => {
    const id = `refused-${Math.random()}`;
    const res = await post(outcome(id), sign as (raw: string) => string | undefined);
    expect(res.statusCode).toBe(401);
    expect(res.json()).toMatchObject({ type: '/problems/invalid-signature', detail });
    await h.ctx.worker.foldAll();
    expect(await h.ctx.db.select().from(events).where(eq(events.eventId, id))).toEqual([]);
  });

  it('stops accepting the old secret at once after rotation', async () => {
    const old = secret;
    secret = (await h.call(acme.admin, { method: 'POST', url: '/v1/webhook-secrets' })).json()
      .secret;
    expect(
      (await post(outcome('rot-old'), (raw) => signBusinessEvent(old, raw, nowSeconds())))
        .statusCode,
    ).toBe(401);
    expect(
      (await post(outcome('rot-new'), (raw) => signBusinessEvent(secret, raw, nowSeconds())))
        .statusCode,
    ).toBe(202);
  });

  it('answers 401 for an org without a webhook secret and 400 for a bad body', async () => {
    const other = await h.org('no-secret');
    const e = await h.experiment(other.admin);
    const res = await post({ ...outcome('x'), experiment_id: e }, (raw) =>
      signBusinessEvent('whsec_any', raw, nowSeconds()),
    );
    expect(res.statusCode).toBe(401);
    const bad = await post({ ...outcome('y'), value: 'lots' }, (raw) =>
      signBusinessEvent(secret, raw, nowSeconds()),
    );
    expect(bad.statusCode).toBe(400);
    expect(bad.json().errors).toEqual([{ pointer: '#/value', detail: 'must be number' }]);
  });
});
