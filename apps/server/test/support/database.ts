import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { type DatabaseHandle, openDatabase } from '../../src/db/connect.ts';
import { unpackedSeed } from '../../src/db/pglite-seed.ts';
import type { OpenShard } from '../../src/db/shards/open-shards.ts';
import { shardAddress } from '../../src/db/shards/shard-address.ts';

/** Which database the server tests run on: the test command runs them once on each. */
export const TEST_DB = (process.env.ARBITER_TEST_DB ?? 'pglite') as 'pglite' | 'postgres';

/** Shards of event data each test file gets on the PostgreSQL server (ARBITER_TEST_SHARDS); 0 = the database alone. */
export const TEST_SHARDS = Number(process.env.ARBITER_TEST_SHARDS ?? 0);

function adminUrl(): string {
  const url = process.env.ARBITER_TEST_DATABASE_URL;
  if (!url)
    throw new Error(
      'ARBITER_TEST_DB=postgres needs ARBITER_TEST_DATABASE_URL (scripts/test.sh sets it)',
    );
  return url;
}

function withDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

/**
 * The production build's seed (the global setup built it from these sources), unpacked once: an
 * in-memory PGlite started from it skips initdb and the migrations, seconds per test file.
 */
const PGLITE_SEED = unpackedSeed(new URL('../../dist/pglite-seed.tar.gz', import.meta.url));

/** A fresh, migrated database for one test file: in-memory PGlite, or a new database on the server. */
export async function freshDatabase(
  serverUrl?: string,
): Promise<DatabaseHandle & { url: string | null }> {
  if (TEST_DB === 'pglite' && serverUrl === undefined) {
    return {
      ...(await openDatabase({ kind: 'pglite', dataDir: null, seed: PGLITE_SEED })),
      url: null,
    };
  }
  return freshDatabaseOn(serverUrl ?? adminUrl());
}

/** A fresh, migrated database on the PostgreSQL server at `server` (its admin URL), dropped by close(). */
export async function freshDatabaseOn(
  server: string,
): Promise<DatabaseHandle & { url: string | null }> {
  const name = `arbiter_t_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: server });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = withDatabase(server, name);
  // close() drops the database with (force), which may end connections pg is still closing.
  const handle = await openDatabase({ kind: 'postgres', url }, () => {});
  return {
    ...handle,
    url,
    close: async () => {
      await handle.close();
      const cleanup = new pg.Client({ connectionString: server });
      await cleanup.connect();
      await cleanup.query(`drop database if exists ${name} with (force)`);
      await cleanup.end();
    },
  };
}

const script = (name: string) =>
  fileURLToPath(new URL(`../../../../scripts/${name}`, import.meta.url));

/**
 * A PostgreSQL cluster of the caller's own, apart from the test server (a free port, its
 * files in a new temporary directory): the admin URL, and stop() that stops it and removes
 * the directory.
 */
export function startOwnCluster(): { url: string; stop(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'arbiter-own-pg-'));
  const env: Record<string, string | undefined> = { ...process.env, ARBITER_TEST_PG_DIR: dir };
  delete env.ARBITER_TEST_DATABASE_URL;
  delete env.ARBITER_TEST_PG_PORT;
  const stop = () => execFileSync('bash', [script('stop-postgres.sh'), dir], { stdio: 'ignore' });
  try {
    const url = execFileSync('bash', [script('ensure-postgres.sh')], { env, encoding: 'utf8' });
    return { url: url.trim(), stop };
  } catch (error) {
    stop();
    throw error;
  }
}

/**
 * Fresh databases on a PostgreSQL server as the shards of event data: `count` of them (by
 * default ARBITER_TEST_SHARDS when the tests run on PostgreSQL, else none: the database alone).
 */
export async function freshShards(
  count = TEST_DB === 'postgres' ? TEST_SHARDS : 0,
  serverUrl?: string,
): Promise<OpenShard[]> {
  const shards: OpenShard[] = [];
  for (let i = 0; i < count; i++) {
    const handle = await freshDatabase(serverUrl ?? adminUrl());
    shards.push({ handle, address: shardAddress(handle.url as string) });
  }
  return shards;
}
