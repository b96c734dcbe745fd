import type { Context } from '../../context.ts';
import type { App } from '../../http/app-types.ts';
import { registerSignedBodies } from '../../http/business-signature-auth.ts';
import { keepRawJsonBody } from '../../http/raw-json-body.ts';
import * as businessEvents from './business-events.ts';
import * as clerk from './clerk.ts';

/** Signed webhooks: the signature hook verifies each request; no session, no API key. */
export async function webhookRoutes(app: App, ctx: Context): Promise<void> {
  await app.register(async (scope) => {
    const signed = scope as unknown as App;
    await registerSignedBodies(signed, ctx);
    businessEvents.register(signed, ctx);
  });
  // Its own scope: the business events' per-org rate limit does not apply to the provider.
  await app.register(async (scope) => {
    const identity = scope as unknown as App;
    keepRawJsonBody(identity);
    clerk.register(identity, ctx);
  });
}
