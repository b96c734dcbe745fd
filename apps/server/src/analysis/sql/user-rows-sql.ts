import { type SQL, sql } from 'drizzle-orm';

/**
 * How a per-user value reads a user's rows in the window. The values (`perUserValue`,
 * `ratioValues`) are written once against this, and read either the user's rows grouped
 * (`GROUPED_ROWS`: sums over every day's stats, outcomes and judge scores) or, for a one-day
 * window, the user's single stats row beside the user's outcomes grouped apart (`oneDayRows`).
 */
export interface UserRows {
  /** A daily-stats column summed over the user's days (null for a user without stats rows). */
  stat(column: string): SQL;
  /** Σ n, Σ sum (`s`) or the number of rows (`rows`) of the user's outcomes of a business metric. */
  outcome(metric: string, field: 'n' | 's' | 'rows'): SQL;
  /** The mean of the user's judge scores of a judge metric. */
  judge(metric: string): SQL;
}

/** Aggregates over the user's grouped rows (columns as `sourceRows` names them). */
export const GROUPED_ROWS: UserRows = {
  stat: (column) => sql`sum(${sql.raw(column)})`,
  outcome: (metric, field) =>
    field === 'rows'
      ? sql`count(*) filter (where metric = ${metric})`
      : sql`sum(${sql.raw(field)}) filter (where metric = ${metric})`,
  judge: (metric) => sql`avg(score) filter (where metric = ${metric})`,
};

/**
 * A one-day window's rows: the stats row `s` (the table keeps one per user and day) and the
 * outcomes `o`, grouped per user apart from it. Every outcome aggregate a value asks for
 * becomes a column of `o` (`columns`, in the order first asked), read as `o.o_<k>`.
 */
export function oneDayRows(): UserRows & { columns: SQL[] } {
  const columns: SQL[] = [];
  const names = new Map<string, string>();
  const column = (key: string, aggregate: SQL) => {
    let name = names.get(key);
    if (name === undefined) {
      name = `o_${names.size}`;
      names.set(key, name);
      columns.push(sql`${aggregate} as ${sql.raw(name)}`);
    }
    return sql.raw(`o.${name}`);
  };
  return {
    columns,
    stat: (c) => sql.raw(`s.${c}`),
    outcome: (metric, field) =>
      column(JSON.stringify(['outcome', metric, field]), GROUPED_ROWS.outcome(metric, field)),
    judge: (metric) => column(JSON.stringify(['judge', metric]), GROUPED_ROWS.judge(metric)),
  };
}
