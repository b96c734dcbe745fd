import { type SQL, sql } from 'drizzle-orm';
import type { MetricDefinition } from '../../schemas/experiment-config.ts';
import type { ValueScope } from '../reads/value-scope.ts';
import { covariateOf, firstExposures } from './covariate-sql.ts';
import { ratioBusinessMetrics, ratioStatsColumns, ratioValues } from './ratio-values-sql.ts';
import { GROUPED_ROWS, oneDayRows, type UserRows } from './user-rows-sql.ts';
import { dailyRows } from './window-relations.ts';

/** The daily-stats columns a model-call kind's per-user value reads (exposures always). */
const STATS_COLUMNS: Record<string, readonly string[]> = {
  latency: ['latency_n', 'latency_sum'],
  tokens: ['tokens_n', 'tokens_sum'],
  cost: ['calls', 'cost_sum'],
  error_rate: ['calls', 'errors'],
};

export function isBusinessKind(kind: string): boolean {
  return ['conversion', 'retention', 'revenue', 'value'].includes(kind);
}

/** The column of `u` holding metric `index`'s per-user value (null outside its population). */
export function valueColumn(index: number): SQL {
  return sql.raw(`u.y_${index}`);
}

/** The column of `u` holding CUPED's covariate of metric `index`, or a ratio's denominator. */
export function covariateColumn(index: number): SQL {
  return sql.raw(`u.x_${index}`);
}

/**
 * The CTEs ending in `u`: one row per (variant, user) that has any stored row in the window,
 * with `exposures` and, per metric i, its per-user value `y_i` (docs/decisions/analysis.md#per-user-values; null when the user
 * is outside the metric's population) and, for CUPED metrics, the pre-period covariate `x_i`
 * (null without pre-period data). One hash aggregate over the daily stats, business outcomes
 * and judge scores together, instead of a set per metric joined back: every later pass reads
 * each user once. The table's exact `numeric` day sums are added as float8 (a user's few days:
 * rounding far below what any test can see, 1e-16 relative, and several times faster than
 * numeric addition over millions of rows).
 *
 * A one-day window needs no aggregate over the stats: the table keeps one row per user and
 * day, so each user's stats row is joined to the user's outcomes and judge scores, grouped
 * apart (usually far fewer rows). The values are the same expressions over the same float8
 * numbers, with one term each.
 */
export function perUserCtes(scope: ValueScope, metrics: readonly MetricDefinition[]): SQL {
  const columns = [
    'exposures',
    ...new Set(metrics.flatMap((m) => [...(STATS_COLUMNS[m.kind] ?? []), ...ratioStatsColumns(m)])),
  ];
  const oneDay = scope.window.from === scope.window.to;
  const aggregated = oneDay
    ? oneDayValues(scope, metrics, columns)
    : sql`select variant, user_id, sum(exposures) as exposures${valueList(metrics, GROUPED_ROWS)}
    from (${sourceRows(scope, metrics, columns)}) r group by user_id, variant`;
  const cuped = metrics.flatMap((m, i) => (m.cuped ? [i] : []));
  if (cuped.length === 0) return sql`u as materialized (${aggregated})`;
  const covariates = cuped.map(
    (i) =>
      sql`, case when a.${sql.raw(`y_${i}`)} is not null then ${sql.raw(`c_${i}.x`)} end as ${sql.raw(`x_${i}`)}`,
  );
  const joins = cuped.map(
    (i) =>
      sql` left join ${sql.raw(`cov_${i} c_${i}`)} on ${sql.raw(`c_${i}`)}.user_id = a.user_id`,
  );
  return sql`${covariateCtes(scope, metrics)}
    u as materialized (select a.*${sql.join(covariates, sql``)} from (${aggregated}) a${sql.join(joins, sql``)})`;
}

/** `, <value> as y_i[, <denominator> as x_i]` for every metric, over the user's rows. */
function valueList(metrics: readonly MetricDefinition[], rows: UserRows): SQL {
  const values = metrics.map((m, i) => {
    if (m.kind !== 'ratio') return sql`, ${perUserValue(m, rows)} as ${sql.raw(`y_${i}`)}`;
    // A ratio's numerator is its y and its denominator its x, summed like CUPED's y and x.
    const { numerator, denominator } = ratioValues(m, rows);
    return sql`, ${numerator} as ${sql.raw(`y_${i}`)}, ${denominator} as ${sql.raw(`x_${i}`)}`;
  });
  return sql.join(values, sql``);
}

/**
 * A one-day window's per-user rows: the day's stats rows `s` (one per user) fully joined to
 * the outcomes and judge scores `o` grouped per user, so users with only outcomes count too.
 */
function oneDayValues(
  scope: ValueScope,
  metrics: readonly MetricDefinition[],
  columns: readonly string[],
): SQL {
  const rows = oneDayRows();
  const values = valueList(metrics, rows);
  const stats = sql`select variant, user_id, ${sql.raw(columns.map((c) => `${c}::float8 as ${c}`).join(', '))}
    from ${dailyRows(scope, 'user_day_stats')} where ${inWindow(scope)}`;
  if (rows.columns.length === 0)
    return sql`select s.variant, s.user_id, s.exposures${values} from (${stats}) s`;
  const outcomes = sql`select variant, user_id, ${sql.join(rows.columns, sql`, `)}
    from (${outcomeRows(scope, metrics, [])}) r group by user_id, variant`;
  return sql`select coalesce(s.variant, o.variant) as variant, coalesce(s.user_id, o.user_id) as user_id,
      s.exposures${values}
    from (${stats}) s full join (${outcomes}) o on o.variant = s.variant and o.user_id = s.user_id`;
}

const inWindow = ({ experimentId, window }: ValueScope) =>
  sql`experiment_id = ${experimentId}::uuid and day between ${window.from}::date and ${window.to}::date`;

/** The daily stats, business outcomes and judge scores of the window, as one row set. */
function sourceRows(
  scope: ValueScope,
  metrics: readonly MetricDefinition[],
  columns: readonly string[],
): SQL {
  const stats = sql.raw(columns.map((c) => `${c}::float8 as ${c}`).join(', '));
  return sql.join(
    [
      sql`select variant, user_id, null::text as metric, ${stats}, null::float8 as n, null::float8 as s,
      null::float8 as score from ${dailyRows(scope, 'user_day_stats')} where ${inWindow(scope)}`,
      ...outcomeParts(scope, metrics, columns),
    ],
    sql` union all `,
  );
}

/** The window's business outcomes and judge scores (with `columns` as nulls), as one row set. */
function outcomeRows(
  scope: ValueScope,
  metrics: readonly MetricDefinition[],
  columns: readonly string[],
): SQL {
  return sql.join(outcomeParts(scope, metrics, columns), sql` union all `);
}

function outcomeParts(
  scope: ValueScope,
  metrics: readonly MetricDefinition[],
  columns: readonly string[],
): SQL[] {
  const nulls = sql.raw(columns.map((c) => `null::float8 as ${c}, `).join(''));
  const parts: SQL[] = [];
  const business = [
    ...metrics.filter((m) => isBusinessKind(m.kind)).map((m) => m.name),
    ...metrics.flatMap(ratioBusinessMetrics),
  ];
  if (business.length)
    parts.push(sql`select variant, user_id, metric, ${nulls}n::float8 as n, sum::float8 as s, null::float8 as score
      from ${dailyRows(scope, 'user_day_business')} where ${inWindow(scope)} and ${oneOf(business)}`);
  const judged = metrics.filter((m) => m.kind === 'judge').map((m) => m.name);
  if (judged.length)
    parts.push(sql`select variant, user_id, metric, ${nulls}null::float8 as n, null::float8 as s, score
      from ${dailyRows(scope, 'judge_scores')} where ${inWindow(scope)} and ${oneOf(judged)}`);
  return parts;
}

/**
 * Each CUPED metric's covariate as its own materialized CTE `cov_<i>` (i: the metric's index),
 * after the users' first exposures `fe`: computed once, whatever plan the planner picks for
 * joining them (without table statistics it would re-run a subquery per user).
 */
function covariateCtes(scope: ValueScope, metrics: readonly MetricDefinition[]): SQL {
  const parts: SQL[] = [];
  metrics.forEach((m, i) => {
    if (m.cuped)
      parts.push(
        sql`${sql.raw(`cov_${i}`)} as materialized (${covariateOf(scope, m, m.cuped.covariate_days)}),`,
      );
  });
  return sql`fe as materialized (${firstExposures(scope)}), ${sql.join(parts, sql` `)} `;
}

/** `metric in (…)`, or false for none (an empty list is not SQL). */
function oneOf(names: readonly string[]): SQL {
  if (names.length === 0) return sql`false`;
  return sql`metric in (${sql.join(
    names.map((n) => sql`${n}`),
    sql`, `,
  )})`;
}

/**
 * One metric's per-user value (docs/decisions/analysis.md#per-user-values) over the user's grouped rows: latency and tokens the
 * mean of the user's calls (users who made calls), cost the sum (users exposed or calling),
 * error_rate the share of failed calls, judge the mean score, and business kinds over every
 * exposed user plus anyone with the outcome: conversion and retention 0/1, revenue the sum
 * (0 without), `value` the mean of the outcome's values (users with one).
 */
export function perUserValue(metric: MetricDefinition, rows: UserRows = GROUPED_ROWS): SQL {
  const { stat } = rows;
  switch (metric.kind) {
    case 'latency':
      return sql`case when ${stat('latency_n')} > 0 then ${stat('latency_sum')} / ${stat('latency_n')} end`;
    case 'tokens':
      return sql`case when ${stat('tokens_n')} > 0 then ${stat('tokens_sum')} / ${stat('tokens_n')} end`;
    case 'cost':
      return sql`case when ${stat('exposures')} > 0 or ${stat('calls')} > 0 then ${stat('cost_sum')} end`;
    case 'error_rate':
      return sql`case when ${stat('calls')} > 0 then ${stat('errors')} / ${stat('calls')} end`;
    case 'judge':
      return rows.judge(metric.name);
    default:
      return businessValue(metric, rows);
  }
}

function businessValue(metric: MetricDefinition, rows: UserRows): SQL {
  const total = (field: 'n' | 's') => rows.outcome(metric.name, field);
  if (metric.kind === 'value') return sql`${total('s')} / nullif(${total('n')}, 0)`;
  const value =
    metric.kind === 'revenue'
      ? sql`coalesce(${total('s')}, 0)`
      : sql`case when ${total('n')} > 0 then 1 else 0 end::float8`;
  return sql`case when ${rows.stat('exposures')} > 0 or ${rows.outcome(metric.name, 'rows')} > 0 then ${value} end`;
}
