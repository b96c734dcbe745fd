import { type SQL, sql } from 'drizzle-orm';
import { type FoldedTable, foldedRows, NOT_QUARANTINED } from '../../ingest/fold-sql.ts';
import type { ValueScope } from '../reads/value-scope.ts';

/** The per-day tables a run reads: the fold's aggregates and the judge's scores. */
export type DailyTable = FoldedTable | 'judge_scores';

/** Each folded table's columns, in the order the fold's rows of events come in. */
const FOLDED_COLUMNS: Record<FoldedTable, string> = {
  user_day_stats:
    'experiment_id, day, variant, user_id, exposures, calls, errors, latency_n, latency_sum, tokens_n, tokens_sum, cost_sum, cost_n',
  user_day_business: 'experiment_id, day, metric, variant, user_id, n, sum',
  call_value_counts: 'experiment_id, kind, day, variant, value, n',
};

/** The exclusive end of the window as an instant: the cut, else the midnight after its last day. */
export function windowEndInstant(scope: ValueScope): SQL {
  return scope.cut === undefined
    ? sql`(${scope.window.to}::date + 1)::timestamp at time zone 'UTC'`
    : sql`${scope.cut.toISOString()}::timestamptz`;
}

/**
 * `table` as a FROM item named `alias` (the table's own name by default). Without a cut it is
 * the table itself, so the statement is the one it always was. With one (a window ending at a
 * stop, not at a midnight) the experiment's rows of the window's last day are replaced by what
 * the fold made of that day's events before the cut: an event after the stop counts nowhere.
 */
export function dailyRows(scope: ValueScope, table: DailyTable, alias?: string): SQL {
  if (scope.cut === undefined) return sql.raw(alias === undefined ? table : `${table} ${alias}`);
  const columns = table === 'judge_scores' ? '*' : FOLDED_COLUMNS[table];
  const kept = sql`select ${sql.raw(columns)} from ${sql.raw(table)}
    where not (experiment_id = ${scope.experimentId}::uuid and day >= ${scope.window.to}::date)`;
  return sql`(${kept} union all ${rowsBeforeCut(scope, table, scope.cut)}) ${sql.raw(alias ?? table)}`;
}

/**
 * The experiment's rows of the last day up to `cut`: the fold's rows of the day's events before
 * it that the fold has taken (not quarantined, not waiting in its queue), so a read cut at the
 * stop sees the aggregates as if nothing came after; a judge score counts when its call does.
 */
function rowsBeforeCut(scope: ValueScope, table: DailyTable, cut: Date): SQL {
  const day = scope.window.to;
  const events = sql`events e where e.experiment_id = ${scope.experimentId}::uuid
    and e.occurred_at >= (${day}::date)::timestamp at time zone 'UTC'
    and e.occurred_at < ${cut.toISOString()}::timestamptz and ${NOT_QUARANTINED}
    and not exists (select 1 from ingest_pending p where p.txid = e.txid)`;
  if (table === 'judge_scores')
    return sql`select j.* from judge_scores j
      where j.experiment_id = ${scope.experimentId}::uuid and j.day = ${day}::date
        and exists (select 1 from ${events} and e.org_id = j.org_id and e.event_id = j.event_id)`;
  return sql`select * from (${foldedRows(table, events)}) f`;
}
