import type { Database } from '../../db/connect.ts';
import { ShardNotAnswering } from '../../db/shards/shard-not-answering.ts';
import type { ShardSet } from '../../db/shards/shard-set.ts';
import { isShardUnreachable } from '../../db/shards/shard-unreachable.ts';
import type { CopyEventStore } from '../copy-store.ts';
import type {
  AppendRequest,
  AppendResult,
  EventLog,
  FoldOptions,
  FoldResult,
} from '../event-log.ts';
import { anyMeterRow, lockedMonthUsage } from '../meter-lock.ts';
import { PostgresEventLog, uniqueById } from '../postgres-event-log.ts';
import { meterStatement } from '../store-sql.ts';
import { noteUsageAt, noteUsageUnlocked } from '../usage-notice.ts';
import { mergedFolds } from './shard-folds.ts';
import {
  conflictsOnShard,
  type ShardPart,
  splitByShard,
  storedOnShard,
  storeOnShard,
} from './shard-part-store.ts';

/** What became of one shard's part: stored (with what was new) or not, with why. */
type PartOutcome =
  | { ok: true; part: ShardPart; fresh: Set<string>; conflicts: string[] }
  | { ok: false; part: ShardPart; error: unknown };

/**
 * The event log over several shards (ARBITER_SHARD_URLS): a batch is split by the shard of each
 * event's user and each part is stored on its shard, which de-duplicates by `(org_id, event_id)`;
 * the control database meters the events each shard newly stored, once. A part whose shard
 * does not answer is not stored or metered and the append throws `ShardNotAnswering` after the
 * other parts are stored: a retry of the batch finds those as duplicates (not metered again)
 * and stores the rest. Each shard folds its own events under its own watermark; `fold` runs
 * every shard's fold at once.
 */
export class ShardedEventLog implements EventLog {
  private readonly appendListeners: Array<() => void> = [];
  private readonly perShard: PostgresEventLog[];

  constructor(
    private readonly control: Database,
    private readonly shards: ShardSet,
    private readonly copyOf: (position: number) => CopyEventStore | null = () => null,
  ) {
    this.perShard = shards.all.map((s) => new PostgresEventLog(s.db));
  }

  onAppend(listener: () => void): void {
    this.appendListeners.push(listener);
  }

  async append(request: AppendRequest): Promise<AppendResult> {
    const { unique, repeats } = uniqueById(request.events);
    const parts = splitByShard(this.shards, request.orgId, unique);
    const { outcomes, refused } =
      request.allowance === null
        ? { outcomes: await this.storeAndMeterEach(request, parts), refused: [] }
        : await this.storeWithinAllowance(request, parts, request.allowance);
    const stored = outcomes.filter((o) => o.ok);
    const metered = stored.reduce((n, o) => n + o.fresh.size, 0);
    if (request.allowance === null) {
      const { orgId, month, usage } = request;
      await noteUsageUnlocked(this.control, orgId, month, metered, usage);
    }
    if (metered > 0) for (const wake of this.appendListeners) wake();
    const failed = outcomes.filter((o) => !o.ok);
    if (failed.length > 0) throw failureOf(failed);
    return resultOf(stored, repeats, refused);
  }

  /** Without an allowance each part is stored and its new events metered, all parts at once. */
  private async storeAndMeterEach(request: AppendRequest, parts: ShardPart[]) {
    const { orgId, month } = request;
    return Promise.all(
      parts.map(async (part): Promise<PartOutcome> => {
        const db = this.dbAt(part.position);
        try {
          const fresh = await storeOnShard(db, this.copyOf(part.position), orgId, part.events);
          const meterRow = anyMeterRow();
          await this.control.execute(meterStatement(orgId, month, meterRow, fresh.size));
          const old = part.events.filter((e) => !fresh.has(e.event_id));
          return { ok: true, part, fresh, conflicts: await conflictsOnShard(db, orgId, old) };
        } catch (error) {
          return { ok: false, part, error };
        }
      }),
    );
  }

  /**
   * With an allowance the org's shard-0 meter row in the control database is the lock: under
   * it, what each shard holds already is read, the new events are cut at the allowance in batch
   * order, stored on their shards and metered in the lock's transaction.
   */
  private async storeWithinAllowance(
    request: AppendRequest,
    parts: ShardPart[],
    allowance: number,
  ) {
    const { orgId, month } = request;
    return this.control.transaction(async (tx) => {
      const used = await lockedMonthUsage(tx, orgId, month);
      const seen = await Promise.all(parts.map((p) => this.seenIn(p, orgId)));
      const fresh = seen.flatMap((s) =>
        s.ok ? s.part.events.filter((e) => !s.held.has(e.event_id)) : [],
      );
      const room = Math.max(0, Math.min(fresh.length, allowance - used));
      const admitted = new Set(fresh.slice(0, room).map((e) => e.event_id));
      const outcomes = await Promise.all(
        seen.map((s) => (s.ok ? this.storeAdmitted(s.part, s.held, admitted, orgId) : s)),
      );
      const metered = outcomes.reduce((n, o) => n + (o.ok ? o.fresh.size : 0), 0);
      if (metered > 0) await tx.execute(meterStatement(orgId, month, 0, metered));
      await noteUsageAt(tx, orgId, month, used + metered, request.usage);
      return { outcomes, refused: fresh.slice(room).map((e) => e.event_id) };
    });
  }

  private async seenIn(part: ShardPart, orgId: string) {
    try {
      const ids = part.events.map((e) => e.event_id);
      return {
        ok: true as const,
        part,
        held: await storedOnShard(this.dbAt(part.position), orgId, ids),
      };
    } catch (error) {
      return { ok: false as const, part, error };
    }
  }

  /** Stores the part's admitted events; the events it held already are its duplicates. */
  private async storeAdmitted(
    part: ShardPart,
    held: Set<string>,
    admitted: Set<string>,
    orgId: string,
  ): Promise<PartOutcome> {
    const db = this.dbAt(part.position);
    try {
      const toStore = part.events.filter((e) => admitted.has(e.event_id));
      const fresh = await storeOnShard(db, null, orgId, toStore);
      const old = part.events.filter((e) => held.has(e.event_id));
      const kept = {
        position: part.position,
        events: [...old, ...toStore.filter((e) => fresh.has(e.event_id))],
      };
      return { ok: true, part: kept, fresh, conflicts: await conflictsOnShard(db, orgId, old) };
    } catch (error) {
      return { ok: false, part, error };
    }
  }

  private dbAt(position: number): Database {
    return (this.shards.all[position] as { db: Database }).db;
  }

  /** Every shard's fold at once; one that fails does not hold the others back, and is reported. */
  async fold(maxTransactions: number, options: FoldOptions = {}): Promise<FoldResult> {
    return mergedFolds(
      await Promise.allSettled(this.perShard.map((l) => l.fold(maxTransactions, options))),
    );
  }

  async depth(): Promise<number> {
    const depths = await Promise.all(this.perShard.map((l) => l.depth()));
    return depths.reduce((a, b) => a + b, 0);
  }
}

/** A shard that did not answer is a 503 for the batch; any other failure is what it is. */
function failureOf(failed: Array<{ part: ShardPart; error: unknown }>): unknown {
  const other = failed.find((f) => !isShardUnreachable(f.error));
  if (other !== undefined) return other.error;
  return new ShardNotAnswering(
    failed.map((f) => f.part.position),
    failed[0]?.error,
    'write',
  );
}

function resultOf(
  stored: Array<{ part: ShardPart; fresh: Set<string>; conflicts: string[] }>,
  repeats: string[],
  refused: string[],
): AppendResult {
  const all = stored.flatMap((o) => o.part.events.map((e) => ({ e, fresh: o.fresh })));
  return {
    appended: all.filter(({ e, fresh }) => fresh.has(e.event_id)).map(({ e }) => e.event_id),
    duplicates: [
      ...all.filter(({ e, fresh }) => !fresh.has(e.event_id)).map(({ e }) => e.event_id),
      ...repeats,
    ],
    conflicts: stored.flatMap((o) => o.conflicts),
    refused,
  };
}
