import type { Plane } from '../../http/app-types.ts';
import { registerSignedBodies } from '../../http/business-signature-auth.ts';
import * as businessEvents from './business-events.ts';

/** Routes signed with the org's webhook secret: their JSON parser keeps the raw body. */
const businessSigned: Plane = async (app, { ctx }) => {
  await registerSignedBodies(app, ctx);
  businessEvents.register(app, ctx);
};

/** Signed webhooks: the signature hook verifies each request; no session, no API key. */
export const webhookRoutes: Plane = async (app, { ctx }) => {
  await app.register(businessSigned, { ctx });
};
