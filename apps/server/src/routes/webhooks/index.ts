import type { Context } from '../../context.ts';
import type { App } from '../../http/app-types.ts';
import { keepRawJsonBodies, registerSignedBodies } from '../../http/business-signature-auth.ts';
import * as businessEvents from './business-events.ts';
import * as stripe from './stripe.ts';

/** Signed webhooks: the signature hook verifies each request; no session, no API key. */
export async function webhookRoutes(app: App, ctx: Context): Promise<void> {
  await app.register(async (scope) => {
    const signed = scope as unknown as App;
    await registerSignedBodies(signed, ctx);
    businessEvents.register(signed, ctx);
  });
  await app.register(async (scope) => {
    const signed = scope as unknown as App;
    keepRawJsonBodies(signed);
    stripe.register(signed, ctx);
  });
}
