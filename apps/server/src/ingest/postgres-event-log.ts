import { type Database, rows } from '../db/connect.ts';
import { findActiveKeyByHash, isActiveFor } from '../domain/keys.ts';
import { conflictingIds } from './conflict-sql.ts';
import type { CopyStore } from './copy-store.ts';
import {
  type AppendRequest,
  type AppendResult,
  type EventLog,
  type FoldOptions,
  type FoldResult,
  InactiveKeyError,
} from './event-log.ts';
import type { AcceptedEvent } from './event-schema.ts';
import { foldIsolating, isDataError } from './fold-isolation.ts';
import {
  type FoldRow,
  foldResultOf,
  foldStatement,
  lockWatermark,
  lockWatermarkIfFree,
  unfoldedCount,
} from './fold-sql.ts';
import { anyMeterRow, lockedMonthUsage } from './meter-lock.ts';
import { storedOnShard } from './shards/shard-part-store.ts';
import { storeAndMeter } from './store-sql.ts';
import { noteUsageAt, noteUsageUnlocked } from './usage-notice.ts';

export function uniqueById(events: readonly AcceptedEvent[]): {
  unique: AcceptedEvent[];
  repeats: string[];
} {
  const seen = new Set<string>();
  const unique: AcceptedEvent[] = [];
  const repeats: string[] = [];
  for (const e of events) {
    if (seen.has(e.event_id)) repeats.push(e.event_id);
    else {
      seen.add(e.event_id);
      unique.push(e);
    }
  }
  return { unique, repeats };
}

async function store(
  db: Pick<Database, 'execute'>,
  orgId: string,
  month: string,
  shard: number,
  events: readonly AcceptedEvent[],
) {
  const [result] = await rows<{ fresh: string[] }>(
    db as Database,
    storeAndMeter(orgId, month, shard, events),
  );
  return new Set(result?.fresh ?? []);
}

/** Of events already stored under their ids, those that say something else (none read when none). */
async function conflicts(
  db: Pick<Database, 'execute'>,
  orgId: string,
  stored: readonly AcceptedEvent[],
): Promise<string[]> {
  if (stored.length === 0) return [];
  const found = await rows<{ event_id: string }>(db as Database, conflictingIds(orgId, stored));
  return found.map((r) => r.event_id);
}

/**
 * The single-node adapter: the `events` table is the log. An append stores and meters a batch
 * in one transaction (the 202 follows its commit); each stored row carries its transaction's
 * id, which a trigger lists in the fold's queue (`ingest_pending`) in the same transaction, and
 * the fold takes the queued transactions' rows into the per-user daily aggregates. On a
 * PostgreSQL server first deliveries are written with COPY (`copy`); PGlite and retries take
 * one INSERT statement that skips events already stored. The sending key (`keyHash`) is checked
 * in the COPY's own transaction; the other paths look it up just before their write.
 */
export class PostgresEventLog implements EventLog {
  readonly checksKeysInWrite = true;
  private readonly appendListeners: Array<() => void> = [];

  constructor(
    private readonly db: Database,
    private readonly copy: CopyStore | null = null,
  ) {}

  onAppend(listener: () => void): void {
    this.appendListeners.push(listener);
  }

  async append(request: AppendRequest): Promise<AppendResult> {
    const result = await this.write(request);
    if (result.appended.length > 0) for (const wake of this.appendListeners) wake();
    return result;
  }

  private async write(request: AppendRequest): Promise<AppendResult> {
    const { orgId, month, allowance, keyHash, usage } = request;
    if (allowance !== null) {
      await this.requireActiveKey(orgId, keyHash);
      return this.appendWithinAllowance(request, allowance);
    }
    const result = await this.writeUnlimited(request);
    await noteUsageUnlocked(this.db, orgId, month, result.appended.length, usage);
    return result;
  }

  /** A batch without an allowance: metered on any meter row, by COPY where there is one. */
  private async writeUnlimited(request: AppendRequest): Promise<AppendResult> {
    const { orgId, events, month, keyHash } = request;
    const { unique, repeats } = uniqueById(events);
    const shard = anyMeterRow();
    const keyHashes = keyHash === undefined ? [] : [keyHash];
    if (this.copy !== null && (await this.copy.store(orgId, month, shard, unique, keyHashes))) {
      return {
        appended: unique.map((e) => e.event_id),
        duplicates: repeats,
        conflicts: [],
        refused: [],
      };
    }
    await this.requireActiveKey(orgId, keyHash);
    const fresh = await store(this.db, orgId, month, shard, unique);
    const stored = unique.filter((e) => !fresh.has(e.event_id));
    return {
      appended: unique.filter((e) => fresh.has(e.event_id)).map((e) => e.event_id),
      duplicates: [...stored.map((e) => e.event_id), ...repeats],
      conflicts: await conflicts(this.db, orgId, stored),
      refused: [],
    };
  }

  /** The paths that write without COPY look the sending key up first, as the route once did. */
  private async requireActiveKey(orgId: string, keyHash: string | undefined): Promise<void> {
    if (keyHash === undefined) return;
    if (!isActiveFor(await findActiveKeyByHash(this.db, keyHash), orgId)) {
      throw new InactiveKeyError();
    }
  }

  /** With an allowance the org's shard-0 meter row is the lock, so concurrent batches are cut in turn. */
  private async appendWithinAllowance(
    request: AppendRequest,
    allowance: number,
  ): Promise<AppendResult> {
    const { orgId, month } = request;
    const { unique, repeats } = uniqueById(request.events);
    return this.db.transaction(async (tx) => {
      const used = await lockedMonthUsage(tx, orgId, month);
      const seen = await storedOnShard(
        tx,
        orgId,
        unique.map((e) => e.event_id),
      );
      const fresh = unique.filter((e) => !seen.has(e.event_id));
      const room = Math.max(0, Math.min(fresh.length, allowance - used));
      const appended = fresh.slice(0, room);
      if (appended.length > 0) await store(tx, orgId, month, 0, appended);
      await noteUsageAt(tx, orgId, month, used + appended.length, request.usage);
      const stored = unique.filter((e) => seen.has(e.event_id));
      return {
        appended: appended.map((e) => e.event_id),
        duplicates: [...stored.map((e) => e.event_id), ...repeats],
        conflicts: await conflicts(tx, orgId, stored),
        refused: fresh.slice(room).map((e) => e.event_id),
      };
    });
  }

  async fold(maxTransactions: number, options: FoldOptions = {}): Promise<FoldResult> {
    const lock = options.ifFree ? lockWatermarkIfFree : lockWatermark;
    const busy: FoldResult = { events: 0, quarantined: [], busy: true };
    try {
      return await this.db.transaction(async (tx) => {
        if ((await rows(tx, lock)).length === 0) return busy;
        const [result] = await rows<FoldRow>(tx, foldStatement(maxTransactions));
        return foldResultOf(result, maxTransactions);
      });
    } catch (error) {
      // A row the fold cannot take: fold the stretch again row by row and set that row aside.
      if (!isDataError(error)) throw error;
      return this.db.transaction(async (tx) => {
        if ((await rows(tx, lock)).length === 0) return busy;
        return foldIsolating(tx, maxTransactions);
      });
    }
  }

  async depth(): Promise<number> {
    const [row] = await rows<{ n: number }>(this.db, unfoldedCount);
    return Number(row?.n ?? 0);
  }
}
