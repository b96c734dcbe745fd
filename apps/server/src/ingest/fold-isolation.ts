import { type Database, rows } from '../db/connect.ts';
import {
  DATA_EXCEPTION_CLASS,
  INTEGRITY_CONSTRAINT_VIOLATION_CLASS,
  PROGRAM_LIMIT_EXCEEDED_CLASS,
  sqlStateOf,
} from '../db/pg-error-codes.ts';
import type { FoldResult, QuarantinedEvent } from './event-log.ts';
import {
  claimStretch,
  foldRowsStatement,
  quarantineStatement,
  type StoredEventKey,
  stretchRows,
} from './fold-sql.ts';

/**
 * SQLSTATE classes that blame the data: 22 data exception (out of range, invalid value),
 * 23 integrity constraint violation, 54 program limit exceeded (too deep, too large). Anything
 * else (a lost connection, a cancelled statement, a bug in the fold) blames no row and is
 * thrown: the fold is retried later instead of setting good rows aside.
 */
const DATA_ERROR_CLASSES = new Set([
  DATA_EXCEPTION_CLASS,
  INTEGRITY_CONSTRAINT_VIOLATION_CLASS,
  PROGRAM_LIMIT_EXCEEDED_CLASS,
]);

export function isDataError(error: unknown): boolean {
  const state = sqlStateOf(error);
  return state !== null && DATA_ERROR_CLASSES.has(state.slice(0, 2));
}

function reasonOf(error: unknown): string {
  let e = error as { message?: unknown; cause?: unknown } | null;
  while (e?.cause) e = e.cause as never;
  const message = typeof e?.message === 'string' ? e.message : String(error);
  return `${sqlStateOf(error) ?? ''} ${message}`.trim().slice(0, 1000);
}

/**
 * The fold of the next stretch failed on its data: claim the stretch's transactions again and
 * fold their rows in halves, each in a savepoint, down to single rows; a row that fails alone
 * is quarantined with the database's reason. The claim takes the stretch off the queue as
 * usual, so the bad row is never retried and holds back no other row or org. Sums are exact
 * (`numeric`), so folding in parts gives the same aggregates as one fold. One transaction,
 * under the fold's lock (taken by the caller).
 */
export async function foldIsolating(tx: Database, span: number): Promise<FoldResult> {
  const stretch = await rows<{ txid: number | string }>(tx, claimStretch(span));
  const keys = await rows<StoredEventKey>(tx, stretchRows(stretch.map((t) => Number(t.txid))));
  const quarantined: QuarantinedEvent[] = [];
  let events = 0;
  const foldPart = async (part: StoredEventKey[]): Promise<void> => {
    if (part.length === 0) return;
    try {
      await tx.transaction((savepoint) => savepoint.execute(foldRowsStatement(part)));
      events += part.length;
      return;
    } catch (error) {
      if (!isDataError(error)) throw error;
      if (part.length === 1) {
        const key = part[0] as StoredEventKey;
        const reason = reasonOf(error);
        await tx.execute(quarantineStatement(key, reason));
        quarantined.push({ orgId: key.org_id, eventId: key.event_id, type: key.type, reason });
        return;
      }
    }
    const middle = Math.floor(part.length / 2);
    await foldPart(part.slice(0, middle));
    await foldPart(part.slice(middle));
  };
  await foldPart(keys);
  return { events, quarantined, more: stretch.length >= span };
}
