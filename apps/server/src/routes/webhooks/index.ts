import type { Context } from '../../context.ts';
import type { App } from '../../http/app-types.ts';
import * as businessEvents from './business-events.ts';

/** Signed webhooks: each route verifies its own signature; no session, no API key. */
export async function webhookRoutes(app: App, ctx: Context): Promise<void> {
  await app.register(async (scope) => businessEvents.register(scope as unknown as App, ctx));
}
