import { type Database, rows, toNumber } from '../db/connect.ts';
import { unfoldedCount } from './fold-sql.ts';
import { listQuarantined, quarantineCounts } from './quarantine.ts';

/** Quarantined events listed on the health view; the counts cover them all. */
const RECENT_QUARANTINED = 20;

/**
 * How far the fold is behind the event log, and what it set aside: the events stored but not
 * yet in the aggregates, how long the oldest of them has waited, and the quarantine.
 */
export async function ingestHealth(db: Database, now: Date) {
  const [unfolded] = await rows<{ n: unknown; oldest: Date | string | null }>(db, unfoldedCount);
  const oldest = unfolded?.oldest == null ? null : new Date(unfolded.oldest);
  const perOrg = await quarantineCounts(db);
  return {
    unfolded_events: toNumber(unfolded?.n ?? 0),
    oldest_unfolded_at: oldest?.toISOString() ?? null,
    fold_lag_seconds:
      oldest === null ? 0 : Math.max(0, Math.round((now.getTime() - oldest.getTime()) / 1000)),
    quarantined_events: [...perOrg.values()].reduce((a, b) => a + b, 0),
    quarantined_by_org: [...perOrg].map(([org_id, events]) => ({ org_id, events })),
    recent_quarantined: await listQuarantined(db, { limit: RECENT_QUARANTINED }),
  };
}
