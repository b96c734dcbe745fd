import { type SQL, sql } from 'drizzle-orm';
import type { MetricDefinition } from '../schemas/experiment-config.ts';
import { covariateOf, firstExposures } from './covariate-sql.ts';
import type { ValueScope } from './value-scope.ts';

/**
 * The CTEs every per-user value is built from, read once per statement: `su`, each user's
 * daily stats summed over the window (one row per variant and user), and `bu`, each user's
 * business outcomes per metric over the window. The table's exact `numeric` day sums are
 * added as float8 (a user's few days: rounding far below what any test can see, 1e-16
 * relative, and several times faster than numeric addition over millions of rows).
 */
export function userCtes(scope: ValueScope, metrics: readonly MetricDefinition[]): SQL {
  const business = metrics.filter((m) => isBusinessKind(m.kind)).map((m) => m.name);
  const { experimentId, window } = scope;
  return sql`${covariateCtes(scope, metrics)}su as materialized (
      select variant, user_id, sum(exposures::float8) as exposures, sum(calls::float8) as calls,
        sum(errors::float8) as errors, sum(latency_n::float8) as latency_n,
        sum(latency_sum::float8) as latency_sum, sum(tokens_n::float8) as tokens_n,
        sum(tokens_sum::float8) as tokens_sum, sum(cost_sum::float8) as cost_sum
      from user_day_stats
      where experiment_id = ${experimentId}::uuid and day between ${window.from}::date and ${window.to}::date
      group by variant, user_id
    ),
    bu as materialized (
      select metric, variant, user_id, sum(n::float8) as n, sum(sum::float8) as s
      from user_day_business
      where experiment_id = ${experimentId}::uuid and day between ${window.from}::date and ${window.to}::date
        and ${oneOf(business)}
      group by metric, variant, user_id
    )`;
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
  if (parts.length === 0) return sql``;
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

export function isBusinessKind(kind: string): boolean {
  return ['conversion', 'retention', 'revenue', 'value'].includes(kind);
}

/**
 * One metric's per-user values (DESIGN §7) as `(metric, variant, user_id, value, covariate)`:
 * latency and tokens the mean of the user's calls (users who made calls), cost the sum (users
 * exposed or calling), error_rate the share of failed calls, conversion and retention 0/1 and
 * revenue the sum over exposed users plus anyone with the outcome, `value` the mean of values,
 * judge the mean score. `covariate` is the CUPED pre-period value (null without pre-period
 * data, or when the metric has no CUPED), from the CTE `cov_<index>` of `userCtes`.
 */
export function userValues(scope: ValueScope, metric: MetricDefinition, index: number): SQL {
  const values = valueRows(scope, metric);
  const name = sql`${metric.name}::text`;
  if (!metric.cuped)
    return sql`select ${name} as metric, variant, user_id, value, null::float8 as covariate from (${values}) v`;
  return sql`select ${name} as metric, v.variant, v.user_id, v.value, c.x as covariate
    from (${values}) v left join ${sql.raw(`cov_${index}`)} c on c.user_id = v.user_id`;
}

function valueRows(scope: ValueScope, metric: MetricDefinition): SQL {
  switch (metric.kind) {
    case 'latency':
      return sql`select variant, user_id, latency_sum / latency_n as value from su where latency_n > 0`;
    case 'tokens':
      return sql`select variant, user_id, tokens_sum / tokens_n as value from su where tokens_n > 0`;
    case 'cost':
      return sql`select variant, user_id, cost_sum as value from su where exposures > 0 or calls > 0`;
    case 'error_rate':
      return sql`select variant, user_id, errors / calls as value from su where calls > 0`;
    case 'judge':
      return sql`select variant, user_id, avg(score) as value from judge_scores
        where experiment_id = ${scope.experimentId}::uuid and metric = ${metric.name}
          and day between ${scope.window.from}::date and ${scope.window.to}::date
        group by variant, user_id`;
    default:
      return businessRows(metric);
  }
}

/** Every exposed user (0 when they had no such outcome) plus any user with the outcome. */
function businessRows(metric: MetricDefinition): SQL {
  const value =
    metric.kind === 'revenue'
      ? sql`coalesce(b.s, 0)`
      : metric.kind === 'value'
        ? sql`b.s / nullif(b.n, 0)`
        : sql`case when b.n > 0 then 1 else 0 end::float8`;
  return sql`select variant, user_id, value from (
      select coalesce(e.variant, b.variant) as variant, coalesce(e.user_id, b.user_id) as user_id,
        ${value} as value
      from (select variant, user_id from su where exposures > 0) e
      full join (select variant, user_id, n, s from bu where metric = ${metric.name}) b
        on b.variant = e.variant and b.user_id = e.user_id
    ) o where value is not null`;
}
