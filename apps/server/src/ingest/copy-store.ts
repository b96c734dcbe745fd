import { sql } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import type pg from 'pg';
import { CopyInOneWrite } from '../db/copy-in-one-write.ts';
import { KEY_NOT_ACTIVE, sqlStateOf, UNIQUE_VIOLATION } from '../db/pg-error-codes.ts';
import { eventsAsCopyText } from './copy-text.ts';
import { EVENT_COLUMN_LIST } from './event-columns.ts';
import type { AcceptedEvent } from './event-schema.ts';
import { meterStatement } from './store-sql.ts';

const dialect = new PgDialect();
const COPY_EVENTS = `copy events (${EVENT_COLUMN_LIST}) from stdin`;
const SHA256_HEX = /^[0-9a-f]{64}$/;

const COUNT_MARK = '/*count*/';
/** The meter's text around its count, per org, month and shard: built once, not per request. */
const meterTexts = new Map<string, readonly [string, string]>();
const METER_TEXTS_KEPT = 10_000;

/** The meter statement as simple-protocol text (no parameters there; the values are ours). */
function meterText(orgId: string, month: string, shard: number, count: number): string {
  const key = `${orgId} ${month} ${shard}`;
  let parts = meterTexts.get(key);
  if (parts === undefined) {
    const text = dialect.sqlToQuery(
      meterStatement(orgId, month, shard, sql.raw(COUNT_MARK)).inlineParams(),
    ).sql;
    const at = text.indexOf(COUNT_MARK);
    parts = [text.slice(0, at), text.slice(at + COUNT_MARK.length)];
    if (meterTexts.size >= METER_TEXTS_KEPT) meterTexts.clear();
    meterTexts.set(key, parts);
  }
  return `${parts[0]}${count}${parts[1]}`;
}

/** The keys' check as a statement of the same query: CALL answers no rows, so it may follow a COPY. */
function keyCheckText(orgId: string, keyHashes: readonly string[]): string {
  for (const hash of keyHashes) {
    // inlined, so checked: a key's SHA-256 in hex is all a hash here may be
    if (!SHA256_HEX.test(hash)) throw new Error('a key hash is not a SHA-256 in hex');
  }
  const hashes = keyHashes.map((hash) => `'${hash}'`).join(',');
  return `; call arbiter_require_active_keys(${dialect.escapeString(orgId)}::uuid, array[${hashes}]::text[])`;
}

/** A COPY that wrote nothing for a reason its caller handles: a stored event, or a key gone. */
function isRefusal(error: unknown): boolean {
  const code = sqlStateOf(error);
  return code === UNIQUE_VIOLATION || code === KEY_NOT_ACTIVE;
}

/** What writes a batch by COPY: `CopyEventStore`, or a group of them. */
export interface CopyStore {
  /**
   * True once stored and metered; false when nothing was written because an event was stored
   * before or one of `keyHashes` (the sending keys' SHA-256) is no longer active.
   */
  store(
    orgId: string,
    month: string,
    meterShard: number | null,
    events: readonly AcceptedEvent[],
    keyHashes?: readonly string[],
  ): Promise<boolean>;
}

/**
 * Stores and meters a batch with COPY, PostgreSQL's cheapest bulk write (docs/decisions/ingest.md#the-event-log-and-the-fold), in one
 * round trip: the COPY, the meter and the sending keys' check go as one simple-protocol query,
 * which PostgreSQL runs as one implicit transaction (all or none). COPY cannot skip rows that
 * are already there, so a batch holding an event stored before (a client's retry) fails whole
 * and `store` answers false: the caller then takes the statement path, which de-duplicates, as
 * it does when a key's check fails (it then checks the key alone). Retries are rare; first
 * deliveries take this path.
 */
export class CopyEventStore implements CopyStore {
  constructor(private readonly pool: pg.Pool) {}

  async store(
    orgId: string,
    month: string,
    /** Null on a shard, which stores only: the control database meters. */
    meterShard: number | null,
    events: readonly AcceptedEvent[],
    keyHashes: readonly string[] = [],
  ): Promise<boolean> {
    // inline literals: the simple protocol has no parameters (the values are ours, escaped)
    const meter =
      meterShard === null ? '' : `; ${meterText(orgId, month, meterShard, events.length)}`;
    const keys = keyHashes.length === 0 ? '' : keyCheckText(orgId, keyHashes);
    const client = await this.pool.connect();
    let broken: Error | undefined;
    try {
      await client.query(
        new CopyInOneWrite(`${COPY_EVENTS}${meter}${keys}`, eventsAsCopyText(orgId, events)),
      ).done;
      return true;
    } catch (error) {
      if (isRefusal(error)) return false;
      // a connection in an unknown state is closed, never handed out again
      broken = error as Error;
      throw error;
    } finally {
      client.release(broken);
    }
  }
}
