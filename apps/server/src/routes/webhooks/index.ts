import type { Context } from '../../context.ts';
import type { App, Plane } from '../../http/app-types.ts';
import { keepRawJsonBodies, registerSignedBodies } from '../../http/business-signature-auth.ts';
import type { AcceptDeps } from '../../ingest/accept.ts';
import * as businessEvents from './business-events.ts';
import * as clerk from './clerk.ts';
import * as stripe from './stripe.ts';

/** What the webhooks plane's hooks and routes use: acceptance's parts and the providers' tools. */
export type WebhookDeps = AcceptDeps &
  Pick<Context, 'db' | 'secretBox' | 'billing' | 'billingWebhooks' | 'planPrices'>;

/** Routes signed with the org's webhook secret: their JSON parser keeps the raw body. */
const businessSigned: Plane<WebhookDeps> = async (app, { ctx }) => {
  await registerSignedBodies(app, ctx);
  businessEvents.register(app, ctx);
};

/**
 * A provider-signed webhook (Stripe, the identity provider's Svix) in a scope of its own whose
 * JSON parser keeps the raw body, which the provider's library verifies.
 */
const rawBodyScope =
  <Deps>(route: { register(app: App, ctx: Deps): void }): Plane<Deps> =>
  async (app, { ctx }) => {
    keepRawJsonBodies(app);
    route.register(app, ctx);
  };

/**
 * Signed webhooks: the signature hook verifies each request; no session, no API key. Each
 * provider has its own scope, so the business events' per-org rate limit applies to them alone.
 */
export const webhookRoutes: Plane<WebhookDeps> = async (app, { ctx }) => {
  await app.register(businessSigned, { ctx });
  await app.register(rawBodyScope(stripe), { ctx });
  await app.register(rawBodyScope(clerk), { ctx });
};
