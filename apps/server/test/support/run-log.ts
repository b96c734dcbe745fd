import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { type DestinationStream, destination, multistream } from 'pino';
import type { Context } from '../../src/context.ts';
import { rows } from '../../src/db/connect.ts';
import { apiKeys, webhookEndpoints, webhookSecrets } from '../../src/db/schema.ts';

/**
 * The whole test run's server log and the secrets its servers minted, side by side in
 * ARBITER_TEST_LOG_DIR (scripts/test.sh points it into the run's results folder). The run's
 * last check, scripts/check-log-secrets.mjs, fails when any recorded secret appears in any log
 * line. Unset (a single file run by hand), tests log nowhere, as they always did.
 */
const DIR = process.env.ARBITER_TEST_LOG_DIR;

/** Log level of harness servers: every line a request writes, when the run keeps a log. */
export const RUN_LOG_LEVEL = DIR === undefined ? 'silent' : 'info';

let runFile: DestinationStream | undefined;

/** This worker's log file; writes are synchronous so a worker's exit loses no line. */
function runLog(): DestinationStream | undefined {
  if (DIR === undefined) return undefined;
  if (runFile === undefined) {
    mkdirSync(DIR, { recursive: true });
    runFile = destination({ dest: join(DIR, `server-${process.pid}.ndjson`), sync: true });
  }
  return runFile;
}

/** Where a harness server logs: the run's file, and the test's own stream when it has one. */
export function logDestinationOf(own?: DestinationStream): DestinationStream | undefined {
  const file = runLog();
  if (own === undefined || file === undefined) return own ?? file;
  return multistream([
    { level: 'trace', stream: own },
    { level: 'trace', stream: file },
  ]);
}

/** Whether harness apps log through their context's logger (otherwise Fastify logs nothing). */
export function keepsRunLog(): boolean {
  return DIR !== undefined;
}

const isConnectionRefused = (error: unknown) =>
  (error as { cause?: { code?: unknown } }).cause?.code === 'ECONNREFUSED';

/** Whether the database answers and has the tables secrets live in. */
async function holdsSecretTables(ctx: Context): Promise<boolean> {
  try {
    const [tables] = await rows<{ migrated: boolean }>(
      ctx.db,
      sql`select to_regclass('api_keys') is not null and to_regclass('webhook_secrets') is not null
        and to_regclass('webhook_endpoints') is not null as migrated`,
    );
    return tables?.migrated === true;
  } catch (error) {
    if (isConnectionRefused(error)) return false;
    throw error;
  }
}

/**
 * Records every key and webhook secret the test's database holds, in every form a log line
 * could leak: raw (opened from its ciphertext), SHA-256 hash, ciphertext.
 */
export async function recordSecrets(ctx: Context): Promise<void> {
  if (DIR === undefined) return;
  // The readiness probe's tests run on a database never migrated, or stop its server: neither
  // holds a secret they minted.
  if (!(await holdsSecretTables(ctx))) return;
  const keys = await ctx.db
    .select({ hash: apiKeys.keyHash, sealed: apiKeys.keyCiphertext })
    .from(apiKeys);
  const secrets = await ctx.db
    .select({ sealed: webhookSecrets.secretCiphertext })
    .from(webhookSecrets);
  const endpoints = await ctx.db
    .select({
      sealed: webhookEndpoints.secretCiphertext,
      previous: webhookEndpoints.previousSecretCiphertext,
    })
    .from(webhookEndpoints);
  const lines: string[] = [];
  const sealedForms = (sealed: string | null) => {
    if (sealed === null) return;
    lines.push(sealed);
    if (ctx.secretBox !== null) lines.push(ctx.secretBox.open(sealed));
  };
  for (const row of keys) {
    lines.push(row.hash);
    sealedForms(row.sealed);
  }
  for (const row of secrets) sealedForms(row.sealed);
  for (const row of endpoints) {
    sealedForms(row.sealed);
    sealedForms(row.previous);
  }
  if (lines.length === 0) return;
  mkdirSync(DIR, { recursive: true });
  writeFileSync(join(DIR, `secrets-${process.pid}.txt`), `${lines.join('\n')}\n`, { flag: 'a' });
}
