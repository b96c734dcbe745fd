import type { Context } from '../../context.ts';
import type { App, Plane } from '../../http/app-types.ts';
import { keepRawJsonBodies, registerSignedBodies } from '../../http/business-signature-auth.ts';
import * as businessEvents from './business-events.ts';
import * as clerk from './clerk.ts';
import * as stripe from './stripe.ts';

/** Routes signed with the org's webhook secret: their JSON parser keeps the raw body. */
const businessSigned: Plane = async (app, { ctx }) => {
  await registerSignedBodies(app, ctx);
  businessEvents.register(app, ctx);
};

/**
 * A provider-signed webhook (Stripe, the identity provider's Svix) in a scope of its own whose
 * JSON parser keeps the raw body, which the provider's library verifies.
 */
const rawBodyScope =
  (route: { register(app: App, ctx: Context): void }): Plane =>
  async (app, { ctx }) => {
    keepRawJsonBodies(app);
    route.register(app, ctx);
  };

/**
 * Signed webhooks: the signature hook verifies each request; no session, no API key. Each
 * provider has its own scope, so the business events' per-org rate limit applies to them alone.
 */
export const webhookRoutes: Plane = async (app, { ctx }) => {
  await app.register(businessSigned, { ctx });
  await app.register(rawBodyScope(stripe), { ctx });
  await app.register(rawBodyScope(clerk), { ctx });
};
