import type { Context } from '../../context.ts';
import type { App } from '../../http/app-types.ts';
import { registerSignedBodies } from '../../http/business-signature-auth.ts';
import * as businessEvents from './business-events.ts';

/** Signed webhooks: the signature hook verifies each request; no session, no API key. */
export async function webhookRoutes(app: App, ctx: Context): Promise<void> {
  await app.register(async (scope) => {
    const signed = scope as unknown as App;
    await registerSignedBodies(signed, ctx);
    businessEvents.register(signed, ctx);
  });
}
