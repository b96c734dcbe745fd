import cors from '@fastify/cors';
import rateLimit from '@fastify/rate-limit';
import type { Context } from '../../context.ts';
import { apiKeyHook } from '../../http/api-key-auth.ts';
import type { App, Plane } from '../../http/app-types.ts';
import {
  KeyRateWindows,
  keyRateLimitHook,
  maxPerMinute,
  RATE_WINDOW_MS,
  rateKeyOf,
  rateLimitedProblem,
} from '../../http/key-rate-limit.ts';
import type { AcceptDeps } from '../../ingest/accept.ts';
import { type OfrepDeps, ofrepRoutes } from '../ofrep/index.ts';
import * as assign from './assign.ts';
import * as getConfig from './get-config.ts';
import * as importEvents from './import-events.ts';
import * as postEvents from './post-events.ts';
import * as postOtlpTraces from './post-otlp-traces.ts';
import * as postTargetingTallies from './post-targeting-tallies.ts';

/**
 * Per-key limits; the publishable key, which ships in client code, gets the stricter one. The
 * plugin limits the plane's routes; assign counts against the same windows through its own hook.
 */
async function limitPerKey(
  app: App,
  ctx: Pick<Context, 'config'>,
  windows: KeyRateWindows,
): Promise<void> {
  await app.register(rateLimit, {
    hook: 'preHandler',
    timeWindow: RATE_WINDOW_MS,
    store: windows.asStore(),
    // Only a refusal carries its headers: three headers on every assign cost more than they say.
    addHeadersOnExceeding: {
      'x-ratelimit-limit': false,
      'x-ratelimit-remaining': false,
      'x-ratelimit-reset': false,
    },
    addHeaders: {
      'x-ratelimit-limit': true,
      'x-ratelimit-remaining': true,
      'x-ratelimit-reset': true,
      'retry-after': true,
    },
    // CORS preflights carry no key: they are limited per address instead.
    keyGenerator: rateKeyOf,
    // Synchronous: the plugin awaits whatever this returns, an async function costs a promise.
    max: (request) => maxPerMinute(ctx.config, request),
    errorResponseBuilder: (_request, context) => rateLimitedProblem(context.max, context.ttl),
  });
}

/** What the ingest plane's hooks and routes use: acceptance's parts, the tallies and the database. */
export type IngestDeps = AcceptDeps & OfrepDeps & Pick<Context, 'assignTallies' | 'db'>;

const EXPOSED_HEADERS = ['etag', 'retry-after'];

/**
 * Browsers call the ingest plane from any site with a publishable key. The plugin answers the
 * preflights, in a scope of their own; every other answer gets the two headers the plugin adds
 * for `origin: '*'`, set from constants: run on every answer, the plugin rebuilds its options
 * and the request's route options per request, a few per cent of an assign.
 */
async function allowAnyOrigin(app: App): Promise<void> {
  const exposed = EXPOSED_HEADERS.join(', ');
  app.addHook('onRequest', (_request, reply, done) => {
    reply.header('access-control-allow-origin', '*');
    reply.header('access-control-expose-headers', exposed);
    done();
  });
  await app.register(async (preflights) => {
    await preflights.register(cors, {
      origin: '*',
      methods: ['GET', 'POST'],
      // Authorization: OFREP's browser providers may send the key as a bearer token.
      allowedHeaders: ['x-api-key', 'authorization', 'content-type', 'if-none-match'],
      exposedHeaders: EXPOSED_HEADERS,
      maxAge: 600,
      // A plain OPTIONS (no Origin) is answered too, rather than with a text/plain 400.
      strictPreflight: false,
    });
  });
}

/** The reads any key may call admit a cached key (assign's hot path). */
const keyed =
  (windows: KeyRateWindows): Plane<IngestDeps> =>
  async (app, { ctx }) => {
    app.addHook('onRequest', apiKeyHook(ctx));
    assign.register(app, ctx, keyRateLimitHook(ctx.config, windows));
    getConfig.register(app, ctx);
  };

/**
 * Events are admitted from the key cache: the write checks the key again in its own transaction
 * (docs/decisions/ingest.md#api-keys-and-rate-limits), which saves the busiest route a round trip.
 */
const eventWrites: Plane<IngestDeps> = async (app, { ctx }) => {
  app.addHook('onRequest', apiKeyHook(ctx));
  postEvents.register(app, ctx);
};

/**
 * Tallies are stored too: the database, not a cache, says whether the key is still active. The
 * counts carry no user, so nothing could bound what a publishable key (public, in client code)
 * adds to another user's share: the secret key only, as the contract lists no tallies among
 * the publishable key's operations.
 */
const keyedWrites: Plane<IngestDeps> = async (app, { ctx }) => {
  app.addHook('onRequest', apiKeyHook(ctx, { authoritative: true, secretOnly: true }));
  postTargetingTallies.register(app, ctx);
};

/** Import has its own body parsers and needs the secret key, so it gets its own scope. */
const importScope: Plane<IngestDeps> = (app, { ctx }) => importEvents.register(app, ctx);

/** OTLP reads protobuf and JSON bodies as bytes (gzip or not), so it gets its own scope. */
const otlpScope: Plane<IngestDeps> = (app, { ctx }) => postOtlpTraces.register(app, ctx);

/**
 * The ingest plane: every route behind an API key; the org comes from the key. OFREP's routes
 * (routes/ofrep/) are a scope of it: the same CORS answers and per-key rate windows.
 */
export const ingestRoutes: Plane<IngestDeps> = async (app, { ctx }) => {
  const windows = new KeyRateWindows();
  app.decorateRequest('keyCaller', null);
  await allowAnyOrigin(app);
  await limitPerKey(app, ctx, windows);
  await app.register(keyed(windows), { ctx });
  await app.register(eventWrites, { ctx });
  await app.register(keyedWrites, { ctx });
  await app.register(importScope, { ctx });
  await app.register(otlpScope, { ctx });
  await app.register(ofrepRoutes(windows), { ctx });
};
