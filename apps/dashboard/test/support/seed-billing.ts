import {
  PRICE_PRO,
  signature,
  stripeEvent,
  subscriptionObject,
} from '../../../server/test/support/stripe-events.ts';
import type { StripeMock } from '../../../server/test/support/stripe-mock.ts';
import {
  type Api,
  call,
  createExperiment,
  devToken,
  ingest,
  metric,
  newOrg,
  secretKey,
  waitForExposures,
} from './seed.ts';

/** A webhook delivery from the billing provider, signed as Stripe signs it; its status. */
export async function deliverBillingEvent(base: string, event: object): Promise<number> {
  const payload = JSON.stringify(event);
  const res = await fetch(`${base}/v1/webhooks/stripe`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'billing-signature': signature(payload, new Date()),
    },
    body: payload,
  });
  return res.status;
}

/**
 * The customer the server creates at the provider on the org's first checkout (of Pro, through
 * the API), read from what stripe-mock received for this org.
 */
export async function checkoutCustomer(api: Api, stripe: StripeMock, orgId: string) {
  await call(api, 'POST', '/v1/billing/checkout-session', { plan: 'pro' });
  const session = stripe.requests.find(
    (r) => r.path === '/v1/checkout/sessions' && r.params['metadata[arbiter_org_id]'] === orgId,
  );
  if (session?.params.customer === undefined) throw new Error(`no checkout session of ${orgId}`);
  return session.params.customer;
}

/** The org on Pro: a checkout, then the provider's confirmation through the webhook. */
export async function subscribeToPro(api: Api, stripe: StripeMock, orgId: string) {
  const customer = await checkoutCustomer(api, stripe, orgId);
  const subscription = subscriptionObject({
    id: `sub_${orgId}`,
    customer,
    price: PRICE_PRO,
    status: 'active',
    periodEnd: new Date(Date.now() + 30 * 86_400_000),
    orgId,
  });
  const event = stripeEvent('customer.subscription.created', subscription, new Date());
  const status = await deliverBillingEvent(api.base, event);
  if (status !== 204) throw new Error(`subscription webhook answered ${status}`);
}

export interface CustomerOrg {
  org: string;
  orgId: string;
  /** The admin's (admin@acme.test) API access. */
  api: Api;
}

/**
 * A paying org as the platform owner sees it: on Pro, an admin (admin@acme.test) and a member
 * (member@acme.test), one experiment (`pricing-page`) and 40 exposures this month, all folded.
 */
export async function seedCustomerOrg(base: string, stripe: StripeMock): Promise<CustomerOrg> {
  const { org, api } = await newOrg(base, 'acme-biz', 'admin@acme.test');
  // A user joins the platform with the first request of their session.
  const member = { base, token: await devToken(base, org, 'member@acme.test', 'member') };
  await call(member, 'GET', '/v1/whoami');
  const orgId = (await call(api, 'GET', '/v1/whoami')).org_id as string;
  await subscribeToPro(api, stripe, orgId);
  const key = await secretKey(api);
  const id = await createExperiment(api, 'pricing-page', { control: 50, treatment: 50 }, [
    metric('latency', 'latency', 'welch_t'),
  ]);
  const ts = new Date().toISOString();
  const exposures = Array.from({ length: 40 }, (_, i) => ({
    event_id: `ov-${id}-${i}`,
    type: 'exposure',
    experiment_id: id,
    user_id: `u-${i}`,
    timestamp: ts,
  }));
  await ingest(base, key, exposures);
  await waitForExposures(api, id, 40);
  return { org, orgId, api };
}
