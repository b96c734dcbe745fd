import { finished } from 'node:stream/promises';
import { sql } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import type pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { eventsAsCopyText } from './copy-text.ts';
import { EVENT_COLUMN_LIST } from './event-columns.ts';
import type { AcceptedEvent } from './event-schema.ts';
import { meterStatement } from './store-sql.ts';

const dialect = new PgDialect();
const COPY_EVENTS = `copy events (${EVENT_COLUMN_LIST}) from stdin`;
const UNIQUE_VIOLATION = '23505';

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

function isUniqueViolation(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === UNIQUE_VIOLATION;
}

/** What writes a batch by COPY: `CopyEventStore`, or a group of them. */
export interface CopyStore {
  /** True once stored and metered; false when an event was stored before (nothing written). */
  store(
    orgId: string,
    month: string,
    meterShard: number | null,
    events: readonly AcceptedEvent[],
  ): Promise<boolean>;
}

/**
 * Stores and meters a batch with COPY, PostgreSQL's cheapest bulk write (docs/decisions.md#the-event-log-and-the-fold), in one
 * round trip: the COPY and the meter go as one simple-protocol query, which PostgreSQL runs as
 * one implicit transaction (both or neither). COPY cannot skip rows that are already there, so
 * a batch holding an event stored before (a client's retry) fails whole and `store` answers
 * false: the caller then takes the statement path, which de-duplicates. Retries are rare; first
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
  ): Promise<boolean> {
    // inline literals: the simple protocol has no parameters (the values are ours, escaped)
    const meter =
      meterShard === null ? '' : `; ${meterText(orgId, month, meterShard, events.length)}`;
    const client = await this.pool.connect();
    let broken: Error | undefined;
    try {
      const copy = client.query(copyFrom(`${COPY_EVENTS}${meter}`));
      copy.end(eventsAsCopyText(orgId, events));
      await finished(copy);
      return true;
    } catch (error) {
      if (isUniqueViolation(error)) return false;
      // a connection in an unknown state is closed, never handed out again
      broken = error as Error;
      throw error;
    } finally {
      client.release(broken);
    }
  }
}
