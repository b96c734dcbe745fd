import { sql } from 'drizzle-orm';
import { type Database, rows, toNumber } from '../../db/connect.ts';
import { DAY_MS, startOfUtcDay, utcDay } from '../../kernel/utc-day.ts';
import type { ArmStatus } from '../../schemas/analysis-run.ts';
import { dailyRows } from '../sql/window-relations.ts';
import type { Arrivals } from './sample-size.ts';
import type { ValueScope } from './value-scope.ts';

/** How far back the arrival rate of a time-to-decision estimate looks. */
export const ARRIVAL_DAYS = 7;

/** The window a time-to-decision estimate reads its arrivals from. */
export interface ArrivalSpan {
  window: { from: string; to: string };
  windowDays: number;
  windowEnd: Date;
  /** The arms' exposed users in the window, when read already: a short window needs no query. */
  exposed?: Readonly<Record<string, ArmStatus>>;
}

/**
 * Users whose first exposure in the window falls in its last `ARRIVAL_DAYS` UTC days (fewer
 * when the window is shorter), per arm, and the days that covers up to `windowEnd` (a partial
 * last day counts by its elapsed fraction).
 *
 * `exposed`, the arms' users exposed in the window (the run's sufficient statistics), answers
 * without a query when the span is the whole window (up to `ARRIVAL_DAYS` days): every user
 * exposed in the window then arrived in the span. At one day the query is a hash aggregate per
 * user costing more than the plain aggregate the nightly run is measured against.
 */
export async function readArrivals(
  db: Database,
  scope: ValueScope,
  { window, windowDays, windowEnd, exposed }: ArrivalSpan,
): Promise<Arrivals> {
  const span = Math.min(ARRIVAL_DAYS, windowDays);
  const since = startOfUtcDay(new Date(Date.parse(`${window.to}T00:00:00Z`) - (span - 1) * DAY_MS));
  const days = Math.max(0, (windowEnd.getTime() - since.getTime()) / DAY_MS);
  if (exposed && windowDays <= ARRIVAL_DAYS)
    return {
      days,
      newUsers: Object.fromEntries(
        Object.entries(exposed)
          .filter(([, a]) => a.users > 0)
          .map(([variant, a]) => [variant, a.users]),
      ),
    };
  const found = await rows<{ variant: string; users: unknown }>(
    db,
    sql`select variant, count(*) as users from (
        select variant, user_id, min(day) as first_day from ${dailyRows(scope, 'user_day_stats')}
        where experiment_id = ${scope.experimentId}::uuid and exposures > 0
          and day between ${window.from}::date and ${window.to}::date
        group by variant, user_id
      ) f where first_day >= ${utcDay(since)}::date group by variant`,
  );
  return {
    days,
    newUsers: Object.fromEntries(found.map((r) => [r.variant, toNumber(r.users)])),
  };
}
