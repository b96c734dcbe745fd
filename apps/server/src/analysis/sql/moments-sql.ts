import { type SQL, sql } from 'drizzle-orm';
import type { MetricDefinition } from '../../schemas/experiment-config.ts';
import { covariateColumn, valueColumn } from './user-values-sql.ts';

/**
 * The moment CTEs over the per-user rows `u` (README of @arbiter/stats, "The SQL contract"):
 * `centre`, one row per arm with its exposed users and exposures and, per metric i, n, the
 * covariate's coverage, min, max, the arm's own shifts (its mean, or its single value), and
 * the sums of (y − k), (y − k)² and CUPED's x, x², xy around `k`, one shift per metric taken
 * before the pass; `cm`, the arms' ranges and shifts unpivoted to a row per metric and arm that
 * has values; `moments`, per metric and arm n, the shifts and those sums. One pass over `u`
 * reads every metric of a user at once.
 *
 * Why a shift: one-pass raw sums of squares lose every digit of the spread when the mean is
 * large against it (1e9 ± 0.01); sums around a value near the mean keep them. `k` is the median
 * of the first users' values, known before the pass, so that one pass yields the ranges and the
 * sums. The digits a shift d away from an arm's mean costs grow with d² / variance, so `redo`
 * checks every arm from its own sums: where (mean − k)² exceeds SHIFT_SLACK × the variance, or
 * a sum is not finite, or the arm is constant at another value than k, the second pass, around
 * each arm's own mean, runs after all (`sums`, behind a one-time filter: otherwise PostgreSQL
 * never reads `u` for it), and `moments` is that pass's. A square beyond 1e280 becomes Infinity
 * (the tests report `non_finite`) rather than a float8 overflow error.
 */
export function momentCtes(metrics: readonly MetricDefinition[]): SQL {
  return sql`k as materialized (
      select 1 as one${list(metrics.map(sampleShifts))}
      from (select * from u limit ${sql.raw(String(SHIFT_SAMPLE))}) u
    ),
    centre as materialized (
      select u.variant, count(*) filter (where u.exposures > 0) as users,
        coalesce(sum(u.exposures) filter (where u.exposures > 0), 0) as events,
        count(u.exposures) as stats_rows${list(metrics.map(centreColumns))}
      from u group by u.variant
    ),
    cm(variant, metric, n, n_cov, lo, hi, shift_y, shift_x) as (
      select c.variant, v.* from centre c cross join lateral (${valuesOf(metrics.map(centreRow), rowTypes(4))}) v(metric, n, n_cov, lo, hi, shift_y, shift_x)
      where v.n > 0
    ),
    shifted(variant, metric, n, n_cov, shift_y, shift_x, sum_y, sum_yy, sum_x, sum_xx, sum_xy, kept) as (
      select c.variant, v.* from centre c cross join k
        cross join lateral (${valuesOf(metrics.map(shiftedRow), rowTypes(7, 'boolean'))})
          v(metric, n, n_cov, shift_y, shift_x, sum_y, sum_yy, sum_x, sum_xx, sum_xy, kept)
      where v.n > 0
    ),
    redo as (select coalesce(bool_or(not kept), false) as again from shifted),
    sums as (
      select u.variant${sql.join(metrics.map(sumColumns), sql``)}
      from u join centre c on c.variant = u.variant
      where (select again from redo)
      group by u.variant
    ),
    moments(variant, metric, n, n_cov, shift_y, shift_x, sum_y, sum_yy, sum_x, sum_xx, sum_xy) as (
      select variant, metric, n, n_cov, shift_y, shift_x, sum_y, sum_yy, sum_x, sum_xx, sum_xy
      from shifted where not (select again from redo)
      union all
      select c.variant, v.* from centre c join sums s on s.variant = c.variant
        cross join lateral (${valuesOf(metrics.map(momentRow), rowTypes(7))})
          v(metric, n, n_cov, shift_y, shift_x, sum_y, sum_yy, sum_x, sum_xx, sum_xy)
      where v.n > 0
    )`;
}

/** The users whose values choose `k`: their median is near every arm's mean in practice. */
const SHIFT_SAMPLE = 1000;

/**
 * How far `k` may sit from an arm's mean, as (mean − k)² over the variance, before the second
 * pass runs: the sums then lose at most log10(1 + 100) ≈ 2 of float8's ~16 digits, far inside
 * the 1e-9 the results are held to.
 */
const SHIFT_SLACK = 100;

/** Metrics with an x beside y: CUPED's covariate, or a ratio's denominator. */
const hasX = (m: MetricDefinition) => m.cuped !== undefined || m.kind === 'ratio';

const col = (prefix: string, i: number) => sql.raw(`${prefix}_${i}`);
const list = (parts: SQL[]) =>
  sql.join(
    parts.map((p) => sql`, ${p}`),
    sql``,
  );

/** The SQL types of a VALUES row: metric, n, n_cov, then `floats` float8 columns, then `rest`. */
const rowTypes = (floats: number, ...rest: string[]): string[] => [
  'text',
  'bigint',
  'bigint',
  ...Array.from({ length: floats }, () => 'float8'),
  ...rest,
];

/** `values (…), (…)`, or no row of those types when there are no metrics. */
function valuesOf(rowsOf: SQL[], types: readonly string[]): SQL {
  if (rowsOf.length > 0) return sql`values ${sql.join(rowsOf, sql`, `)}`;
  const nulls = types.map((type) => (type === 'bigint' ? '0::bigint' : `null::${type}`));
  return sql.raw(`select ${nulls.join(', ')} where false`);
}

/** Where a metric's shift sits: a constant arm's value (its sums then exactly 0), else its mean. */
function shift(v: SQL): SQL {
  return sql`case when min(${v}) = max(${v}) then min(${v}) else sum(${v}) / count(${v}) end`;
}

// Users without pre-period data count with x = 0 (the documented imputation).
const covariateOf = (i: number) =>
  sql`(case when ${valueColumn(i)} is not null then coalesce(${covariateColumn(i)}, 0) end)`;

/** `k`'s shifts of metric i: the median of the sample's values (null when it has none). */
function sampleShifts(metric: MetricDefinition, i: number): SQL {
  const ky = sql`percentile_disc(0.5) within group (order by ${valueColumn(i)}) as ${col('k', i)}`;
  if (!hasX(metric)) return ky;
  return sql`${ky}, percentile_disc(0.5) within group (order by ${covariateOf(i)}) as ${col('kx', i)}`;
}

/**
 * Whether metric i's values are 0 or 1 (a user converted or was retained, or not): then
 * `centre` also has `ones_i`, the arm's users at 1 (the shift's own sum, no other aggregate),
 * and its histograms follow from n and that count without reading `u` again.
 */
export const isZeroOne = (metric: MetricDefinition) =>
  metric.kind === 'conversion' || metric.kind === 'retention';

/**
 * Metric i's shift `name` (`k` for y, `kx` for x): an uncorrelated subquery, so PostgreSQL
 * reads `k` once, before the pass.
 */
const fromK = (name: string, i: number) => sql`(select ${col(name, i)} from k)`;

function centreColumns(metric: MetricDefinition, i: number): SQL {
  if (isZeroOne(metric) && !hasX(metric)) return zeroOneColumns(i);
  const y = valueColumn(i);
  const ones = isZeroOne(metric) ? sql`, sum(${y}) as ${col('ones', i)}` : sql``;
  const base = sql`count(${y}) as ${col('n', i)}, min(${y}) as ${col('lo', i)},
    max(${y}) as ${col('hi', i)}, ${shift(y)} as ${col('sy', i)}${ones}`;
  const around = deviations(metric, i, 'k', fromK('k', i), fromK('kx', i));
  if (!hasX(metric)) return sql`${base}${around}`;
  return sql`${base}, count(${covariateColumn(i)}) as ${col('nc', i)},
    ${shift(covariateOf(i))} as ${col('sx', i)}${around}`;
}

/**
 * A 0/1 metric's `centre` columns from two aggregates, its n and its ones, instead of six: its
 * range, shift and sums around `k` follow from them. `k`, a median of 0/1 values, is 0 or 1,
 * so the sums are whole numbers below 2^53: exact in float8, the same values the per-user
 * sums give.
 */
function zeroOneColumns(i: number): SQL {
  const n = sql`count(${valueColumn(i)})`;
  const ones = sql`sum(${valueColumn(i)})`;
  const k = fromK('k', i);
  return sql`${n} as ${col('n', i)},
    case when ${n} = 0 then null when ${ones} < ${n} then 0 else 1 end::float8 as ${col('lo', i)},
    case when ${n} = 0 then null when ${ones} > 0 then 1 else 0 end::float8 as ${col('hi', i)},
    ${ones} / ${n} as ${col('sy', i)}, ${ones} as ${col('ones', i)},
    ${ones} - ${n} * ${k} as ${col('ka', i)},
    ${ones} * (1 - ${k}) * (1 - ${k}) + (${n} - ${ones}) * ${k} * ${k} as ${col('kb', i)}`;
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

/**
 * The sums of metric i's deviations from the shifts given, as columns `<p>a_i` (y), `<p>b_i`
 * (y²) and, with an x, `<p>c_i`, `<p>d_i`, `<p>e_i` (x, x², xy) over the users with a y.
 */
function deviations(metric: MetricDefinition, i: number, p: string, sy: SQL, sx: SQL): SQL {
  const dy = sql`(${valueColumn(i)} - ${sy})`;
  const base = sql`, sum(${dy}) as ${col(`${p}a`, i)}, sum(${square(dy)}) as ${col(`${p}b`, i)}`;
  if (!hasX(metric)) return base;
  const dx = sql`(coalesce(${covariateColumn(i)}, 0) - ${sx})`;
  const mine = sql`filter (where ${valueColumn(i)} is not null)`;
  return sql`${base}, sum(${dx}) ${mine} as ${col(`${p}c`, i)}, sum(${square(dx)}) ${mine} as ${col(`${p}d`, i)},
    sum(${product(dx, dy)}) ${mine} as ${col(`${p}e`, i)}`;
}

/**
 * Whether sums of n values around a shift keep their digits: finite, and either all exactly at
 * the shift or (mean − shift)² = (a / n)² within SHIFT_SLACK × the variance (b − a² / n) / n.
 */
function keeps(n: SQL, a: SQL, b: SQL): SQL {
  return sql`(abs(${a}) < 'Infinity'::float8 and ${b} < 'Infinity'::float8
    and ((${a} = 0 and ${b} = 0) or ${a} * ${a} / ${n} <= ${sql.raw(String(SHIFT_SLACK))} * (${b} - ${a} * ${a} / ${n})))`;
}

/** Metric i's row of `shifted`: its sums around `k`, and whether they keep their digits. */
function shiftedRow(metric: MetricDefinition, i: number): SQL {
  const n = sql`c.${col('n', i)}`;
  const ofY = keeps(n, sql`c.${col('ka', i)}`, sql`c.${col('kb', i)}`);
  if (!hasX(metric))
    return sql`(${metric.name}::text, ${n}, 0::bigint, k.${col('k', i)}, 0::float8,
      c.${col('ka', i)}, c.${col('kb', i)}, 0::float8, 0::float8, 0::float8, coalesce(${ofY}, false))`;
  const ofX = keeps(n, sql`c.${col('kc', i)}`, sql`c.${col('kd', i)}`);
  return sql`(${metric.name}::text, ${n}, c.${col('nc', i)}, k.${col('k', i)}, k.${col('kx', i)},
    c.${col('ka', i)}, c.${col('kb', i)}, c.${col('kc', i)}, c.${col('kd', i)}, c.${col('ke', i)},
    coalesce(${ofY} and ${ofX} and abs(c.${col('ke', i)}) < 'Infinity'::float8, false))`;
}

/** The second pass's sums, around each arm's own shifts in `centre` (`c`). */
function sumColumns(metric: MetricDefinition, i: number): SQL {
  return deviations(metric, i, '', sql`c.${col('sy', i)}`, sql`c.${col('sx', i)}`);
}

function momentRow(metric: MetricDefinition, i: number): SQL {
  const covariate = hasX(metric)
    ? sql`c.${col('nc', i)}, c.${col('sy', i)}, c.${col('sx', i)}, s.${col('a', i)}, s.${col('b', i)},
        s.${col('c', i)}, s.${col('d', i)}, s.${col('e', i)}`
    : sql`0::bigint, c.${col('sy', i)}, 0::float8, s.${col('a', i)}, s.${col('b', i)},
        0::float8, 0::float8, 0::float8`;
  return sql`(${metric.name}::text, c.${col('n', i)}, ${covariate})`;
}
