import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import type { DestinationStream } from 'pino';
import { buildApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import type { Context } from '../../src/context.ts';
import { createContext } from '../../src/create-context.ts';
import type { DatabaseHandle } from '../../src/db/connect.ts';
import type { OpenShard } from '../../src/db/shards/open-shards.ts';
import type { App } from '../../src/http/app-types.ts';
import type { Clock, FreeSpaceProbe } from '../../src/kernel/ports.ts';
import { experimentConfig } from './builders.ts';
import { freshDatabase, freshShards } from './database.ts';
import { keepsRunLog, logDestinationOf, RUN_LOG_LEVEL, recordSecrets } from './run-log.ts';
import { scaleOutEnv } from './scale-out-env.ts';
import { TEST_AUDIENCE, TEST_ISSUER, type TokenClaims, testIdentityProvider } from './sessions.ts';

/** Tests import the config builder from here too, beside the harness that posts it. */
export { experimentConfig };

export const TEST_SECRET_KEY = 'test-secret-key-0123456789abcdef0123456789';

export interface Harness {
  app: App;
  ctx: Context;
  /** The test database's URL on a PostgreSQL server; null on PGlite. */
  databaseUrl: string | null;
  token(claims: TokenClaims): Promise<string>;
  idp: Awaited<ReturnType<typeof testIdentityProvider>>;
  /** inject() with a bearer token (or none). */
  call(token: string | null, options: InjectOptions): Promise<LightMyRequestResponse>;
  /** inject() with an API key in X-API-Key (or none). */
  ingest(key: string | null, options: InjectOptions): Promise<LightMyRequestResponse>;
  /** Creates an experiment (experimentConfig with `overrides`) as `token`; returns its id. */
  experiment(token: string, overrides?: Record<string, unknown>): Promise<string>;
  /** Creates an org (if new) with an admin session, an experiment-ready key of each scope. */
  org(
    externalId: string,
  ): Promise<{ admin: string; publishable: string; secret: string; orgId: string }>;
  close(): Promise<void>;
}

/**
 * One app on a fresh database per test file, configured as a real deployment would be: on
 * Kafka and an S3 server too when the test environment names them (support/scale-out-env.ts).
 */
export async function startHarness(
  env: Record<string, string> = {},
  parts: {
    clock?: Clock;
    logDestination?: DestinationStream;
    database?: DatabaseHandle;
    freeSpace?: FreeSpaceProbe;
    /** Shards of event data (default: ARBITER_TEST_SHARDS fresh databases on the test server). */
    shards?: OpenShard[];
  } = {},
): Promise<Harness> {
  const idp = await testIdentityProvider();
  const dataDir = mkdtempSync(join(tmpdir(), 'arbiter-data-'));
  const config = loadConfig({
    ARBITER_DATA_DIR: dataDir,
    ARBITER_SESSION_JWKS_URL: idp.jwksPath,
    ARBITER_SESSION_ISSUER: TEST_ISSUER,
    // Development sessions (a test that clears the JWKS) carry no audience.
    ...(env.ARBITER_SESSION_JWKS_URL === '' ? {} : { ARBITER_SESSION_AUDIENCE: TEST_AUDIENCE }),
    ARBITER_SECRET_KEY: TEST_SECRET_KEY,
    // Tests' webhook receivers listen on loopback; a test of the address rules turns this off.
    ARBITER_WEBHOOKS_ALLOW_PRIVATE: 'true',
    ARBITER_LOG_LEVEL: parts.logDestination === undefined ? RUN_LOG_LEVEL : 'info',
    // Kafka and an S3 server under every app when the test environment names them.
    ...(await scaleOutEnv()),
    ...env,
  });
  // A test may bring its own database (a PGlite on a file system it fills, say).
  const database = parts.database ? { ...parts.database, url: null } : await freshDatabase();
  const logDestination = logDestinationOf(parts.logDestination);
  const ctx = await createContext(config, {
    database,
    clock: parts.clock,
    freeSpace: parts.freeSpace,
    logDestination,
    shards: parts.shards ?? (await freshShards()),
  });
  const app = await buildApp(ctx, {
    logger: keepsRunLog() || parts.logDestination !== undefined,
  });
  await app.ready();
  const call: Harness['call'] = (token, options) => {
    const headers = { ...(options.headers ?? {}) } as Record<string, string>;
    if (token !== null) headers.authorization = `Bearer ${token}`;
    return app.inject({ ...options, headers });
  };
  const harness: Harness = {
    app,
    ctx,
    databaseUrl: database.url,
    idp,
    token: (claims) => idp.sign(claims),
    call,
    async experiment(token, overrides = {}) {
      const res = await call(token, {
        method: 'POST',
        url: '/v1/experiments',
        payload: experimentConfig(overrides),
      });
      if (res.statusCode !== 201) throw new Error(`experiment not created: ${res.body}`);
      return res.json().id;
    },
    ingest(key, options) {
      const headers = { ...(options.headers ?? {}) } as Record<string, string>;
      if (key !== null) headers['x-api-key'] = key;
      return app.inject({ ...options, headers });
    },
    async org(externalId) {
      const admin = await idp.sign({
        sub: `admin-of-${externalId}`,
        org_id: externalId,
        org_role: 'admin',
      });
      const make = async (scope: string) =>
        (
          await app.inject({
            method: 'POST',
            url: '/v1/keys',
            headers: { authorization: `Bearer ${admin}` },
            payload: { scope },
          })
        ).json().key as string;
      const publishable = await make('publishable');
      const secret = await make('secret');
      const orgId = (
        await app.inject({
          method: 'GET',
          url: '/v1/whoami',
          headers: { authorization: `Bearer ${admin}` },
        })
      ).json().org_id as string;
      return { admin, publishable, secret, orgId };
    },
    async close() {
      await recordSecrets(ctx);
      // A test may have swapped in an app of its own on this context (another build's options).
      await harness.app.close();
      if (harness.app !== app) await app.close();
      await ctx.close();
      // the folders this harness made: a test run by hand (no test command's TMPDIR) leaves none
      rmSync(dataDir, { recursive: true, force: true });
      idp.dispose();
    },
  };
  return harness;
}
