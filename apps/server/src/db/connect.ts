import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PGlite } from '@electric-sql/pglite';
import type { sql } from 'drizzle-orm';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import type pg from 'pg';
import { lockDataDir } from './data-dir-lock.ts';
import { DATA_DIR_MODE, secureDataDir } from './data-dir-mode.ts';
import { boundedPglite } from './database-timeout.ts';
import { type DataDirCopy, dumpPglite } from './pglite-backup.ts';
import { bundledSeed, seedFor } from './pglite-seed.ts';
import * as schema from './schema.ts';
import { traceStatements } from './statement-spans.ts';

/** The one database type the services see, whether PGlite or a PostgreSQL server sits below. */
export type Database = PgDatabase<PgQueryResultHKT, typeof schema>;
/** The handle a `db.transaction` callback receives. */
export type Transaction = Parameters<Parameters<Database['transaction']>[0]>[0];

export interface DatabaseHandle {
  db: Database;
  kind: 'pglite' | 'postgres';
  /** The server's connection pool, for what Drizzle does not speak (COPY); null on PGlite. */
  pool: pg.Pool | null;
  /** Where the embedded database writes its files; null in memory and on a PostgreSQL server. */
  dataDir: string | null;
  /**
   * A consistent copy of the embedded database (PGlite's data dir, read between transactions,
   * sent as a gzipped tarball); null on a PostgreSQL server, which has its own tools.
   */
  dump: (() => Promise<DataDirCopy>) | null;
  close(): Promise<void>;
}

const MIGRATIONS = fileURLToPath(new URL('./migrations', import.meta.url));
/** Serialises migrations of several processes starting at once against one server. */
const MIGRATION_LOCK = 7_227_001;

export type DatabaseTarget =
  | {
      kind: 'pglite';
      dataDir: string | null;
      /**
       * In memory only: an initialised, migrated database to start from (a `dumpDataDir`
       * tarball) in place of the build's seed; code run from source has no build beside it.
       */
      seed?: Blob;
    }
  | { kind: 'postgres'; url: string };

/** Called when PostgreSQL ends a pooled connection that was idle (restart, failover, admin). */
export type ConnectionLostHandler = (error: Error) => void;

const reportOnStderr: ConnectionLostHandler = (error) => {
  process.stderr.write(`arbiter: a pooled PostgreSQL connection was lost: ${error.message}\n`);
};

/** The longest one database call may take unless the caller says (ARBITER_DATABASE_TIMEOUT_MS). */
export const DEFAULT_DATABASE_TIMEOUT_MS = 60_000;

/**
 * Opens and migrates the database. With `traced` (traces are exported), each statement after
 * the migrations runs in a span of its own: see statement-spans.ts.
 */
export async function openDatabase(
  target: DatabaseTarget,
  onConnectionLost: ConnectionLostHandler = reportOnStderr,
  timeoutMs = DEFAULT_DATABASE_TIMEOUT_MS,
  traced = false,
): Promise<DatabaseHandle> {
  return target.kind === 'pglite'
    ? openPglite(target.dataDir, target.seed, timeoutMs, traced)
    : openPostgres(target.url, onConnectionLost, timeoutMs, traced);
}

/**
 * PGlite's buffer pool (PostgreSQL's `shared_buffers`). PGlite writes over the whole pool at
 * every start (`memset`, its start's costliest WebAssembly function): at PostgreSQL's 128 MB a
 * sixth of a restart's CPU (bench/startup/RESULTS.md). An embedded database reads what the pool
 * misses from the operating system's page cache, as PostgreSQL itself does; an in-memory one
 * from its own memory, so its pool only copies pages (docs/decisions/operations.md#build-start-and-the-demo).
 */
const ON_DISK_START = [...PGlite.defaultStartParams, '-c', 'shared_buffers=32MB'];
const IN_MEMORY_START = [...PGlite.defaultStartParams, '-c', 'shared_buffers=16MB'];

async function openPglite(
  targetDir: string | null,
  memorySeed: Blob | undefined,
  timeoutMs: number,
  traced: boolean,
): Promise<DatabaseHandle> {
  let dataDir: string | undefined;
  let unlock = () => {};
  if (targetDir !== null) {
    mkdirSync(targetDir, { recursive: true, mode: DATA_DIR_MODE });
    unlock = lockDataDir(targetDir);
    dataDir = join(targetDir, 'pgdata');
    mkdirSync(dataDir, { recursive: true, mode: DATA_DIR_MODE });
    secureDataDir(targetDir, dataDir);
  }
  try {
    const seed = dataDir === undefined ? (memorySeed ?? bundledSeed()) : seedFor(dataDir);
    const client = await PGlite.create({
      ...(dataDir === undefined
        ? { startParams: IN_MEMORY_START }
        : { dataDir, startParams: ON_DISK_START }),
      ...(seed ? { loadDataDir: seed } : {}),
    });
    const bounded = boundedPglite(client, timeoutMs, traced);
    const db = drizzlePglite(bounded, { schema }) as unknown as Database;
    await migratePglite(db as never, { migrationsFolder: MIGRATIONS });
    // Unpacking the seed sets the tarball's modes (0666): tighten them again.
    if (dataDir !== undefined && targetDir !== null) secureDataDir(targetDir, dataDir);
    const close = async () => {
      try {
        await client.close();
      } finally {
        unlock();
      }
    };
    return {
      db,
      kind: 'pglite',
      pool: null,
      dataDir: targetDir,
      dump: () => dumpPglite(client, dataDir ?? null),
      close,
    };
  } catch (error) {
    unlock();
    throw error;
  }
}

async function openPostgres(
  url: string,
  onConnectionLost: ConnectionLostHandler,
  timeoutMs: number,
  traced: boolean,
): Promise<DatabaseHandle> {
  // The PostgreSQL driver is loaded only here: an embedded start does not pay for importing it.
  const [{ default: pgDriver }, { drizzle: drizzlePg }, { migrate: migratePg }] = await Promise.all(
    [
      import('pg'),
      import('drizzle-orm/node-postgres'),
      import('drizzle-orm/node-postgres/migrator'),
    ],
  );
  // Every statement and every wait for a connection is bounded; the analysis transaction sets
  // its own, longer statement bound.
  const pool = new pgDriver.Pool({
    connectionString: url,
    max: 10,
    connectionTimeoutMillis: timeoutMs,
    statement_timeout: timeoutMs,
  });
  // Without a listener the pool's 'error' event would end the process; the pool has already
  // dropped the connection and opens a new one for the next query.
  pool.on('error', onConnectionLost);
  // A connection checked out of the pool has no such listener: one that dies between two
  // statements of a transaction (its server stopped) would end the process too, a fold worker
  // with it. The transaction's next statement fails with the loss and the pool drops the
  // connection; the listener only keeps the process alive.
  pool.on('connect', (client) => client.on('error', () => {}));
  const db = drizzlePg(pool, { schema }) as unknown as Database;
  const conn = await pool.connect();
  try {
    await conn.query('select pg_advisory_lock($1)', [MIGRATION_LOCK]);
    await migratePg(drizzlePg(conn, { schema }) as never, { migrationsFolder: MIGRATIONS });
    await conn.query('select pg_advisory_unlock($1)', [MIGRATION_LOCK]);
  } finally {
    conn.release();
  }
  if (traced) traceStatements(pool);
  return { db, kind: 'postgres', pool, dataDir: null, dump: null, close: () => pool.end() };
}

/** `pg` returns int8 and numeric as strings, PGlite as numbers: raw queries normalise here. */
export function toNumber(value: unknown): number {
  return typeof value === 'number' ? value : Number(value);
}

export async function rows<T>(db: Database, query: ReturnType<typeof sql>): Promise<T[]> {
  const result = (await db.execute(query)) as unknown as { rows: T[] };
  return result.rows;
}
