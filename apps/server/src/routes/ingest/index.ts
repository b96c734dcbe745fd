import rateLimit from '@fastify/rate-limit';
import type { Context } from '../../context.ts';
import { apiKeyHook, keyCallerOf } from '../../http/api-key-auth.ts';
import type { App } from '../../http/app-types.ts';
import { ProblemError } from '../../http/problems.ts';
import * as assign from './assign.ts';
import * as getConfig from './get-config.ts';
import * as importEvents from './import-events.ts';
import * as postEvents from './post-events.ts';

/** Per-key limits; the publishable key, which ships in client code, gets the stricter one. */
async function limitPerKey(app: App, ctx: Context): Promise<void> {
  await app.register(rateLimit, {
    hook: 'preHandler',
    timeWindow: 60_000,
    keyGenerator: (request) => keyCallerOf(request).keyHash,
    max: async (request) =>
      keyCallerOf(request).scope === 'secret'
        ? ctx.config.rateLimitSecretPerMinute
        : ctx.config.rateLimitPublishablePerMinute,
    errorResponseBuilder: (_request, context) =>
      new ProblemError(
        'rate-limited',
        `More than ${context.max} requests per minute with this key; retry in ${context.after}`,
      ),
  });
}

/** The ingest plane: every route behind an API key; the org comes from the key. */
export async function ingestRoutes(app: App, ctx: Context): Promise<void> {
  app.decorateRequest('keyCaller', null);
  await limitPerKey(app, ctx);
  await app.register(async (keyed) => {
    const plane = keyed as unknown as App;
    plane.addHook('onRequest', apiKeyHook(ctx));
    assign.register(plane, ctx);
    getConfig.register(plane, ctx);
    postEvents.register(plane, ctx);
  });
  // Import has its own body parsers and needs the secret key.
  await app.register(async (scope) => importEvents.register(scope as unknown as App, ctx));
}
