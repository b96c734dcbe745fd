import { type SQL, sql } from 'drizzle-orm';
import type { MetricDefinition } from '../schemas/experiment-config.ts';
import { covariateColumn, valueColumn } from './user-values-sql.ts';

/**
 * The moment CTEs over the per-user rows `u` (README of @arbiter/stats, "The SQL contract"):
 * `centre`, one row per arm with its exposed users and exposures and, per metric i, n, the
 * covariate's coverage, min, max and the shifts (the arm's mean, or its single value); `cm`,
 * the same unpivoted to a row per metric and arm that has values; `moments`, per metric and
 * arm the sums of (y − shift), (y − shift)² and CUPED's x, x², xy the same way. Two passes
 * over `u`, each reading every metric of a user at once.
 *
 * Why the shift: one-pass raw sums of squares lose every digit of the spread when the mean is
 * large against it (1e9 ± 0.01); sums around the arm's own mean keep them. A square beyond
 * 1e280 becomes Infinity (the tests report `non_finite`) rather than a float8 overflow error.
 */
export function momentCtes(metrics: readonly MetricDefinition[]): SQL {
  return sql`centre as materialized (
      select u.variant, count(*) filter (where u.exposures > 0) as users,
        coalesce(sum(u.exposures) filter (where u.exposures > 0), 0) as events,
        count(u.exposures) as stats_rows${list(metrics.map(centreColumns))}
      from u group by u.variant
    ),
    cm(variant, metric, n, n_cov, lo, hi, shift_y, shift_x) as (
      select c.variant, v.* from centre c cross join lateral (${valuesOf(metrics.map(centreRow), 7)}) v(metric, n, n_cov, lo, hi, shift_y, shift_x)
      where v.n > 0
    ),
    sums as (
      select u.variant${list(metrics.map(sumColumns))}
      from u join centre c on c.variant = u.variant group by u.variant
    ),
    moments(variant, metric, n, n_cov, shift_y, shift_x, sum_y, sum_yy, sum_x, sum_xx, sum_xy) as (
      select c.variant, v.* from centre c join sums s on s.variant = c.variant
        cross join lateral (${valuesOf(metrics.map(momentRow), 10)})
          v(metric, n, n_cov, shift_y, shift_x, sum_y, sum_yy, sum_x, sum_xx, sum_xy)
      where v.n > 0
    )`;
}

/** Metrics with an x beside y: CUPED's covariate, or a ratio's denominator. */
const hasX = (m: MetricDefinition) => m.cuped !== undefined || m.kind === 'ratio';

const col = (prefix: string, i: number) => sql.raw(`${prefix}_${i}`);
const list = (parts: SQL[]) =>
  sql.join(
    parts.map((p) => sql`, ${p}`),
    sql``,
  );

/** `values (…), (…)`, or no row of `width` columns when there are no metrics. */
function valuesOf(rowsOf: SQL[], width: number): SQL {
  if (rowsOf.length > 0) return sql`values ${sql.join(rowsOf, sql`, `)}`;
  const floats = Array.from({ length: width - 3 }, () => 'null::float8').join(', ');
  return sql.raw(`select null::text, 0::bigint, 0::bigint, ${floats} where false`);
}

/** Where a metric's shift sits: a constant arm's value (its sums then exactly 0), else its mean. */
function shift(v: SQL): SQL {
  return sql`case when min(${v}) = max(${v}) then min(${v}) else sum(${v}) / count(${v}) end`;
}

function centreColumns(metric: MetricDefinition, i: number): SQL {
  const y = valueColumn(i);
  const base = sql`count(${y}) as ${col('n', i)}, min(${y}) as ${col('lo', i)},
    max(${y}) as ${col('hi', i)}, ${shift(y)} as ${col('sy', i)}`;
  if (!hasX(metric)) return base;
  // Users without pre-period data count with x = 0 (the documented imputation).
  const x = sql`(case when ${y} is not null then coalesce(${covariateColumn(i)}, 0) end)`;
  return sql`${base}, count(${covariateColumn(i)}) as ${col('nc', i)},
    ${shift(x)} as ${col('sx', i)}`;
}

function centreRow(metric: MetricDefinition, i: number): SQL {
  const cov = hasX(metric) ? sql`c.${col('nc', i)}, ` : sql`0::bigint, `;
  const sx = hasX(metric) ? sql`c.${col('sx', i)}` : sql`0::float8`;
  return sql`(${metric.name}::text, c.${col('n', i)}, ${cov}c.${col('lo', i)}, c.${col('hi', i)},
    c.${col('sy', i)}, ${sx})`;
}

// A user outside the metric's population has a null value: null in, null out.
const square = (d: SQL) =>
  sql`case when abs(${d}) >= 1e140 then 'Infinity'::float8 else ${d} * ${d} end`;
const product = (a: SQL, b: SQL) =>
  sql`case when abs(${a}) >= 1e140 or abs(${b}) >= 1e140 then 'Infinity'::float8 else ${a} * ${b} end`;

function sumColumns(metric: MetricDefinition, i: number): SQL {
  const dy = sql`(${valueColumn(i)} - c.${col('sy', i)})`;
  const base = sql`sum(${dy}) as ${col('a', i)}, sum(${square(dy)}) as ${col('b', i)}`;
  if (!hasX(metric)) return base;
  const dx = sql`(coalesce(${covariateColumn(i)}, 0) - c.${col('sx', i)})`;
  const mine = sql`filter (where ${valueColumn(i)} is not null)`;
  return sql`${base}, sum(${dx}) ${mine} as ${col('c', i)}, sum(${square(dx)}) ${mine} as ${col('d', i)},
    sum(${product(dx, dy)}) ${mine} as ${col('e', i)}`;
}

function momentRow(metric: MetricDefinition, i: number): SQL {
  const covariate = hasX(metric)
    ? sql`c.${col('nc', i)}, c.${col('sy', i)}, c.${col('sx', i)}, s.${col('a', i)}, s.${col('b', i)},
        s.${col('c', i)}, s.${col('d', i)}, s.${col('e', i)}`
    : sql`0::bigint, c.${col('sy', i)}, 0::float8, s.${col('a', i)}, s.${col('b', i)},
        0::float8, 0::float8, 0::float8`;
  return sql`(${metric.name}::text, c.${col('n', i)}, ${covariate})`;
}
