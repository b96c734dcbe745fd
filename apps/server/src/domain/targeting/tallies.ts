import { and, eq, gte, inArray, lte, sql } from 'drizzle-orm';
import type { Database } from '../../db/connect.ts';
import { experiments, targetingTallies } from '../../db/schema.ts';
import { utcDay } from '../../kernel/utc-day.ts';

/** Users of one experiment and UTC day who reached its targeting: entered, or got null. */
export interface Tally {
  experiment_id: string;
  day: string;
  matched: number;
  excluded: number;
}

/** The org's experiments among `ids` (holdouts are not assigned, so they are never targeted). */
async function experimentsOfOrg(db: Database, orgId: string, ids: string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const found = await db
    .select({ id: experiments.id })
    .from(experiments)
    .where(
      and(
        eq(experiments.orgId, orgId),
        eq(experiments.kind, 'experiment'),
        inArray(experiments.id, ids),
      ),
    );
  return new Set(found.map((r) => r.id));
}

/**
 * One row per (experiment, day): a statement may not update a row twice, and rows in key order
 * keep two concurrent reports of the same experiments from waiting on each other's locks.
 */
function merged(tallies: readonly Tally[]): Tally[] {
  const byKey = new Map<string, Tally>();
  for (const t of tallies) {
    const key = `${t.experiment_id} ${t.day}`;
    const seen = byKey.get(key);
    if (seen === undefined) byKey.set(key, { ...t });
    else {
      seen.matched += t.matched;
      seen.excluded += t.excluded;
    }
  }
  return [...byKey.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, t]) => t);
}

/**
 * Adds the tallies of the org's experiments to their sums; returns the indices of those naming
 * no experiment of the org, which are left out (an id of another org reads as unknown).
 */
export async function addTallies(
  db: Database,
  orgId: string,
  tallies: readonly Tally[],
): Promise<{ unknown: number[] }> {
  const known = await experimentsOfOrg(db, orgId, [
    ...new Set(tallies.map((t) => t.experiment_id.toLowerCase())),
  ]);
  const unknown: number[] = [];
  const kept: Tally[] = [];
  tallies.forEach((t, i) => {
    const id = t.experiment_id.toLowerCase();
    if (known.has(id)) kept.push({ ...t, experiment_id: id });
    else unknown.push(i);
  });
  const rows = merged(kept).filter((t) => t.matched + t.excluded > 0);
  if (rows.length > 0) {
    await db
      .insert(targetingTallies)
      .values(rows.map((t) => ({ orgId, experimentId: t.experiment_id, ...t })))
      .onConflictDoUpdate({
        target: [targetingTallies.orgId, targetingTallies.experimentId, targetingTallies.day],
        set: {
          matched: sql`targeting_tallies.matched + excluded.matched`,
          excluded: sql`targeting_tallies.excluded + excluded.excluded`,
        },
      });
  }
  return { unknown };
}

/** An experiment's sums over the UTC days `from` to `to` (both included), and the days reported. */
export async function tallyTotals(
  db: Database,
  orgId: string,
  experimentId: string,
  days: { from: string; to: string },
): Promise<{ matched: number; excluded: number; days: number }> {
  const [row] = await db
    .select({
      matched: sql<string>`coalesce(sum(${targetingTallies.matched}), 0)`,
      excluded: sql<string>`coalesce(sum(${targetingTallies.excluded}), 0)`,
      days: sql<string>`count(*)`,
    })
    .from(targetingTallies)
    .where(
      and(
        eq(targetingTallies.orgId, orgId),
        eq(targetingTallies.experimentId, experimentId),
        gte(targetingTallies.day, days.from),
        lte(targetingTallies.day, days.to),
      ),
    );
  return {
    matched: Number(row?.matched ?? 0),
    excluded: Number(row?.excluded ?? 0),
    days: Number(row?.days ?? 0),
  };
}

/** What the results route shows of an experiment's targeting over a run's window. */
export interface TargetingShare {
  matched: number;
  excluded: number;
  excluded_share: number | null;
  days: number;
}

/**
 * The sums over the UTC days a run's window touches (`end` is exclusive: a nightly window ends
 * at the next midnight, a manual one at its instant).
 */
export async function targetingShare(
  db: Database,
  orgId: string,
  experimentId: string,
  window: { start: string; end: string },
): Promise<TargetingShare> {
  const from = utcDay(new Date(window.start));
  const to = utcDay(new Date(Date.parse(window.end) - 1));
  const totals = await tallyTotals(db, orgId, experimentId, { from, to });
  const reached = totals.matched + totals.excluded;
  return { ...totals, excluded_share: reached === 0 ? null : totals.excluded / reached };
}
