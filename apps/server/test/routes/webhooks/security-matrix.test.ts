import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signBusinessEvent } from '../../../src/http/business-signature.ts';
import {
  clerkEvent,
  clerkOrganization,
  deliverer,
  webhookSecret,
} from '../../support/clerk-webhooks.ts';
import { type Harness, startHarness } from '../../support/harness.ts';
import {
  documentedWith,
  expectUnauthorized,
  storedEventsOf,
} from '../../support/security-matrix.ts';
import { deliverBillingEvent, stripeEvent, WEBHOOK_SECRET } from '../../support/stripe-events.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

describe('security matrix of the identity webhook', () => {
  const secret = webhookSecret();
  let ih: Harness;
  beforeAll(async () => {
    ih = await startHarness({
      ARBITER_CLERK_WEBHOOK_SECRET: secret,
    });
  });
  afterAll(() => ih.close());

  describe('POST /v1/webhooks/clerk (Svix signature)', () => {
    const event = () => {
      const at = Date.now();
      return clerkEvent('organization.created', clerkOrganization('org_matrix', 'M', at), at);
    };
    const unsigned = (headers: Record<string, string>) =>
      ih.app.inject({
        method: 'POST',
        url: '/v1/webhooks/clerk',
        headers: { 'content-type': 'application/json', ...headers },
        payload: event(),
      });

    it('answers 401 without a signature', async () => {
      const res = await unsigned({});
      expect(res.statusCode).toBe(401);
      expect(res.json()).toMatchObject({
        type: '/problems/invalid-signature',
        detail: 'Identity webhook refused: the svix-id header is missing',
      });
    });

    it('answers 401 for a signature made with another secret', async () => {
      const res = await deliverer(ih.app, secret)(event(), {
        msgId: 'msg_matrix_forged',
        secret: webhookSecret(),
      });
      expect(res.statusCode).toBe(401);
      expect(res.json().type).toBe('/problems/invalid-signature');
    });

    it('answers 401 to a session token or an API key instead of a signature', async () => {
      const session = await ih.token({ sub: 'u', org_id: 'org_a', org_role: 'admin' });
      const credentials: Record<string, string>[] = [
        { authorization: `Bearer ${session}` },
        { 'x-api-key': 'svc_sk_x' },
      ];
      for (const headers of credentials) {
        const res = await unsigned(headers);
        expect(res.statusCode).toBe(401);
        expect(res.json().type).toBe('/problems/invalid-signature');
      }
    });

    it('admits a delivery signed with the endpoint secret', async () => {
      const res = await deliverer(ih.app, secret)(event(), { msgId: 'msg_matrix_ok' });
      expect(res.statusCode).toBe(204);
    });
  });
});

/**
 * The signed plane: its credential is `Arbiter-Signature`, an HMAC of the raw body with the
 * webhook secret of the org that owns the body's experiment. It has no roles.
 */
const SIGNED_ROUTES = [{ method: 'POST', path: '/v1/business-events' }] as const;

describe('security matrix of the signed plane (business-event signatures)', () => {
  let a: Awaited<ReturnType<Harness['org']>>;
  let b: Awaited<ReturnType<Harness['org']>>;
  let experimentA: string;
  let secretA: string;
  let rotatedA: string;
  let secretB: string;
  let sequence = 0;
  const rotate = async (admin: string) =>
    (await h.call(admin, { method: 'POST', url: '/v1/webhook-secrets' })).json().secret as string;
  const now = () => Math.floor(Date.now() / 1000);
  /** One outcome for org A's experiment; `sign` gives the headers for its raw body. */
  const post = (sign: (raw: string) => Record<string, string>) => {
    const raw = JSON.stringify({
      event_id: `matrix-signed-${++sequence}`,
      experiment_id: experimentA,
      user_id: 'matrix-user',
      business_metric: 'revenue',
      value: 1,
    });
    return h.app.inject({
      method: 'POST',
      url: '/v1/business-events',
      headers: { 'content-type': 'application/json', ...sign(raw) },
      payload: raw,
    });
  };
  const signed =
    (secret: string, at = now()) =>
    (raw: string) => ({
      'arbiter-signature': signBusinessEvent(secret, raw, at),
    });
  const expectRefused = (res: LightMyRequestResponse, reason: string) =>
    expectUnauthorized(res, '/problems/invalid-signature', `Business event refused: ${reason}`);

  beforeAll(async () => {
    a = await h.org('matrix_signed_a');
    b = await h.org('matrix_signed_b');
    experimentA = await h.experiment(a.admin);
    rotatedA = await rotate(a.admin);
    secretA = await rotate(a.admin);
    secretB = await rotate(b.admin);
  });

  it('covers every signed route the OpenAPI document lists', async () => {
    const covered = SIGNED_ROUTES.map((r) => `${r.method} ${r.path}`);
    expect(covered.sort()).toEqual((await documentedWith(h, 'signature')).sort());
  });

  it('answers 401 without a signature', async () => {
    expectRefused(await post(() => ({})), 'the Arbiter-Signature header is missing');
  });

  it('answers 401 to another plane’s credential: an API key or a session token', async () => {
    const others: Array<Record<string, string>> = [
      { 'x-api-key': a.secret },
      { authorization: `Bearer ${a.admin}` },
    ];
    for (const headers of others)
      expectRefused(await post(() => headers), 'the Arbiter-Signature header is missing');
  });

  it('answers 401 to a body signed with another org’s secret or a rotated-away secret', async () => {
    expectRefused(await post(signed(secretB)), 'the signature does not match the body');
    expectRefused(await post(signed(rotatedA)), 'the signature does not match the body');
  });

  it('answers 401 to a signature older than the tolerance', async () => {
    expectUnauthorized(await post(signed(secretA, now() - 3600)), '/problems/invalid-signature');
  });

  it('stored nothing it refused, and admits the current secret of the experiment’s org', async () => {
    expect(await storedEventsOf(h, experimentA)).toBe(0);
    expect((await post(signed(secretA))).statusCode).toBe(202);
    expect(await storedEventsOf(h, experimentA)).toBe(1);
  });
});

describe('security matrix of the billing webhook', () => {
  let bh: Harness;
  beforeAll(async () => {
    bh = await startHarness({ ARBITER_STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET });
  });
  afterAll(() => bh.close());
  // A type the webhook acknowledges and ignores: the signature alone decides the answer.
  const event = () =>
    stripeEvent('invoice.paid', { id: 'in_matrix', object: 'invoice' }, new Date());

  it('covers every route the OpenAPI document signs with the billing signature', async () => {
    expect(await documentedWith(h, 'billingSignature')).toEqual(['POST /v1/webhooks/stripe']);
  });

  it('answers 401 without a signature, and to a session token or an API key instead', async () => {
    const session = await bh.token({ sub: 'u', org_id: 'org_a', org_role: 'admin' });
    for (const headers of [
      {},
      { authorization: `Bearer ${session}` },
      { 'x-api-key': 'svc_sk_x' },
    ]) {
      const res = await bh.app.inject({
        method: 'POST',
        url: '/v1/webhooks/stripe',
        headers: { 'content-type': 'application/json', ...headers },
        payload: event(),
      });
      expect(res.statusCode).toBe(401);
      expect(res.json().type).toBe('/problems/invalid-signature');
    }
  });

  it('answers 401 to a signature made with another secret, or too old', async () => {
    const forged = await deliverBillingEvent(bh, event(), { secret: 'whsec_someone_else' });
    expect(forged.statusCode).toBe(401);
    const stale = await deliverBillingEvent(bh, event(), {
      at: new Date(Date.now() - 3_600_000),
    });
    expect(stale.statusCode).toBe(401);
  });

  it('admits a delivery signed with the endpoint secret, under either header name', async () => {
    for (const header of ['billing-signature', 'stripe-signature'] as const)
      expect((await deliverBillingEvent(bh, event(), { header })).statusCode).toBe(204);
  });
});
