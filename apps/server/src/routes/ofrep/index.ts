import type { Context } from '../../context.ts';
import { apiKeyHook } from '../../http/api-key-auth.ts';
import type { Plane } from '../../http/app-types.ts';
import { type KeyRateWindows, keyRateLimitHook } from '../../http/key-rate-limit.ts';
import * as evaluateFlag from './evaluate-flag.ts';
import * as evaluateFlags from './evaluate-flags.ts';
import { parseErrorHandler } from './wire.ts';

/** What the OFREP plane's hooks and routes use: the keys, the org state, tallies and exposures. */
export type OfrepDeps = Pick<
  Context,
  'apiKeys' | 'config' | 'assignTallies' | 'orgState' | 'serverExposures'
>;

/**
 * OFREP, the OpenFeature Remote Evaluation Protocol: any key of the org, in X-API-Key or as a
 * bearer token (generic providers are configured with either), counted against the same
 * per-key windows as the ingest plane's routes, whose scope registers it. A body that is not
 * JSON is OFREP's PARSE_ERROR; other refusals are the API's problems.
 */
export const ofrepRoutes =
  (windows: KeyRateWindows): Plane<OfrepDeps> =>
  async (app, { ctx }) => {
    app.setErrorHandler(parseErrorHandler(app.errorHandler.bind(app)));
    app.addHook('onRequest', apiKeyHook(ctx, { bearer: true }));
    const limit = keyRateLimitHook(ctx.config, windows);
    evaluateFlag.register(app, ctx, limit);
    evaluateFlags.register(app, ctx, limit);
  };
