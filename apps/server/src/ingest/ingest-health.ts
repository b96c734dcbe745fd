import { type Database, rows, toNumber } from '../db/connect.ts';
import { unfoldedCount } from './fold-sql.ts';
import { listQuarantined, type QuarantineEntry, quarantineCounts } from './quarantine.ts';

/** Quarantined events listed on the health view; the counts cover them all. */
const RECENT_QUARANTINED = 20;

/** One database's fold backlog: events stored but not folded, and how long the oldest waited. */
export async function unfoldedFold(db: Database, now: Date) {
  const [unfolded] = await rows<{ n: unknown; oldest: Date | string | null }>(db, unfoldedCount);
  const oldest = unfolded?.oldest == null ? null : new Date(unfolded.oldest);
  return {
    unfolded_events: toNumber(unfolded?.n ?? 0),
    oldest,
    fold_lag_seconds:
      oldest === null ? 0 : Math.max(0, Math.round((now.getTime() - oldest.getTime()) / 1000)),
  };
}

/**
 * How far the fold is behind the event log, and what it set aside, over every shard given:
 * the events stored but not yet in the aggregates, how long the oldest of them has waited, and
 * the quarantine.
 */
export async function ingestHealth(dbs: readonly Database[], now: Date) {
  const folds = await Promise.all(dbs.map((db) => unfoldedFold(db, now)));
  const counts = await Promise.all(dbs.map((db) => quarantineCounts(db)));
  const perOrg = new Map<string, number>();
  for (const c of counts) for (const [org, n] of c) perOrg.set(org, (perOrg.get(org) ?? 0) + n);
  const recent: QuarantineEntry[] = (
    await Promise.all(dbs.map((db) => listQuarantined(db, { limit: RECENT_QUARANTINED })))
  )
    .flat()
    .sort(
      (a, b) =>
        b.quarantined_at.localeCompare(a.quarantined_at) || a.event_id.localeCompare(b.event_id),
    )
    .slice(0, RECENT_QUARANTINED);
  const oldest = folds.flatMap((f) => (f.oldest === null ? [] : [f.oldest.getTime()]));
  return {
    unfolded_events: folds.reduce((n, f) => n + f.unfolded_events, 0),
    oldest_unfolded_at: oldest.length === 0 ? null : new Date(Math.min(...oldest)).toISOString(),
    fold_lag_seconds: Math.max(0, ...folds.map((f) => f.fold_lag_seconds)),
    quarantined_events: [...perOrg.values()].reduce((a, b) => a + b, 0),
    quarantined_by_org: [...perOrg].map(([org_id, events]) => ({ org_id, events })),
    recent_quarantined: recent,
  };
}
