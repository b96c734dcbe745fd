import type { Plane } from '../../http/app-types.ts';
import { keepRawJsonBodies, registerSignedBodies } from '../../http/business-signature-auth.ts';
import * as businessEvents from './business-events.ts';
import * as clerk from './clerk.ts';
import * as stripe from './stripe.ts';

/** Routes signed with the org's webhook secret: their JSON parser keeps the raw body. */
const businessSigned: Plane = async (app, { ctx }) => {
  await registerSignedBodies(app, ctx);
  businessEvents.register(app, ctx);
};

/** Signed by the billing provider (Stripe): its own scope keeps the raw body for the check. */
const stripeSigned: Plane = async (app, { ctx }) => {
  keepRawJsonBodies(app);
  stripe.register(app, ctx);
};

/** Signed by the identity provider (Svix): likewise. */
const clerkSigned: Plane = async (app, { ctx }) => {
  keepRawJsonBodies(app);
  clerk.register(app, ctx);
};

/**
 * Signed webhooks: the signature hook verifies each request; no session, no API key. Each
 * provider has its own scope, so the business events' per-org rate limit applies to them alone.
 */
export const webhookRoutes: Plane = async (app, { ctx }) => {
  await app.register(businessSigned, { ctx });
  await app.register(stripeSigned, { ctx });
  await app.register(clerkSigned, { ctx });
};
