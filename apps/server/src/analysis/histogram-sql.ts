import { type SQL, sql } from 'drizzle-orm';
import type { MetricDefinition } from '../schemas/experiment-config.ts';
import { valueColumn } from './user-values-sql.ts';

/** Arms whose histograms share bin edges: a (control, treatment) pair, or every arm (live). */
export interface HistogramGroup {
  key: string;
  /** 'all': every arm that has values (the live view). */
  variants: readonly string[] | 'all';
}

const raw = (name: string, i: number, j: number) => sql.raw(`${name}_${i}_${j}`);

/**
 * numpy.histogram(values, bins, range=(min, max)) per arm, as `histogram()` of @arbiter/stats,
 * after `momentCtes` (it reads the arms' min and max from `cm`): `edges`, per metric and group
 * numpy's linspace over the group's range (a single value v widened to v ± 0.5), computed on
 * halves so that a range beyond the largest double is no error, and `bins`, the count per
 * metric, group, arm and bin: numpy's bin, an index guessed by arithmetic and moved by one
 * where the actual edges say so, for every metric and group in one pass over `u` with a
 * grouping set each.
 */
export function histogramCtes(
  metrics: readonly MetricDefinition[],
  groups: readonly HistogramGroup[],
  bins: number,
): SQL {
  const k = sql.raw(String(bins));
  const pairs = metrics.flatMap((m, i) => groups.map((g, j) => ({ m, i, g, j })));
  return sql`grp(g, variant) as (${groupRows(groups)}),
    bounds as (
      select cm.metric, grp.g, min(cm.lo) as lo, max(cm.hi) as hi
      from cm join grp on grp.variant = cm.variant group by cm.metric, grp.g
    ),
    widened as (
      select metric, g,
        case when lo < hi then lo when lo - 0.5 < lo then lo - 0.5 else lo - abs(lo) * 1e-9 end as lo,
        case when lo < hi then hi when hi + 0.5 > hi then hi + 0.5 else hi + abs(hi) * 1e-9 end as hi
      from bounds where lo > '-Infinity'::float8 and hi < 'Infinity'::float8
    ),
    steps as (
      select metric, g, lo, hi, (hi / 2 - lo / 2) / ${k} as step, lo / 2 as half_lo from widened
    ),
    edges as (
      select metric, g, array(
        select case when i = ${k} then s.hi else 2 * (i * s.step + s.lo / 2) end
        from generate_series(0, ${k}) i order by i) as edges
      from steps s
    ),
    ${pairs.length ? binCtes(pairs, bins) : sql`bins(metric, g, variant, bucket, c) as (select null::text, null::text, null::text, 0, 0::bigint where false)`}`;
}

interface Pair {
  m: MetricDefinition;
  i: number;
  g: HistogramGroup;
  j: number;
}

const FIELDS = ['lo', 'hi', 'step', 'half_lo'] as const;

function binCtes(pairs: readonly Pair[], bins: number): SQL {
  const at = (p: Pair, field: string) =>
    sql`max(${sql.raw(field)}) filter (where metric = ${p.m.name} and g = ${p.g.key}) as ${raw(field, p.i, p.j)}`;
  const scalars = pairs.flatMap((p) => FIELDS.map((f) => at(p, f)));
  const values = [...new Set(pairs.map((p) => p.i))].map((i) => sql`, ${valueColumn(i)}`);
  const guesses = pairs.map((p) => sql`, ${guessOf(p, bins)} as ${raw('g', p.i, p.j)}`);
  const buckets = pairs.map((p) => sql`${bucketOf(p, bins)} as ${raw('k', p.i, p.j)}`);
  const sets = pairs.map((_, n) => sql.raw(`(1, ${n + 2})`));
  const unpivot = pairs.map(
    (p) => sql`(${p.m.name}::text, ${p.g.key}::text, b.${raw('k', p.i, p.j)})`,
  );
  // `offset 0` keeps the guesses computed once per row: inlined, each would be recomputed
  // at every use in the bucket's comparisons.
  return sql`ew as (select ${sql.join(scalars, sql`, `)} from steps),
    guessed as (
      select u.variant${sql.join(values, sql``)}${sql.join(guesses, sql``)} from u cross join ew offset 0
    ),
    binned as (
      select u.variant, ${sql.join(buckets, sql`, `)}, count(*) as c
      from guessed u cross join ew group by grouping sets (${sql.join(sets, sql`, `)})
    ),
    bins(metric, g, variant, bucket, c) as (
      select v.metric, v.g, b.variant, v.bucket, b.c
      from binned b cross join lateral (values ${sql.join(unpivot, sql`, `)}) v(metric, g, bucket)
      where v.bucket is not null
    )`;
}

const scalarsOf = (p: Pair) => FIELDS.map((f) => sql`ew.${raw(f, p.i, p.j)}`);

/**
 * A 0-based index guess of metric i's value in group j, within one of numpy's (both are the
 * value's offset in the range times k, rounded differently); null outside the group or
 * without a value. PostgreSQL's own `width_bucket(y, lo, hi, k)` computes it in one call.
 */
function guessOf(p: Pair, bins: number): SQL {
  const y = valueColumn(p.i);
  const [lo, hi] = scalarsOf(p);
  const k = sql.raw(String(bins));
  // (`least` skips nulls: without the case, a missing value would land in the last bin.)
  const inGroup =
    p.g.variants === 'all'
      ? sql``
      : sql` and u.variant in (${sql.join(
          p.g.variants.map((v) => sql`${v}`),
          sql`, `,
        )})`;
  return sql`case when ${y} is not null${inGroup} then least(width_bucket(${y}, ${lo}, ${hi}, ${k}), ${k}) - 1 end`;
}

/**
 * The 1-based bin: the guess, moved by one where numpy's actual edges (2·(i·step + lo/2), the
 * last one hi) say so: bins [a, b), the last one closed.
 */
function bucketOf(p: Pair, bins: number): SQL {
  const y = valueColumn(p.i);
  const g = sql.raw(`u.g_${p.i}_${p.j}`);
  const [, , step, halfLo] = scalarsOf(p);
  const last = sql.raw(String(bins - 1));
  return sql`case when ${y} < 2 * (${g} * ${step} + ${halfLo}) then ${g}
      when ${g} < ${last} and ${y} >= 2 * ((${g} + 1) * ${step} + ${halfLo}) then ${g} + 2
      else ${g} + 1 end`;
}

function groupRows(groups: readonly HistogramGroup[]): SQL {
  const rowsOf = (g: HistogramGroup) =>
    g.variants === 'all'
      ? [sql`select distinct ${g.key}::text, variant from cm`]
      : g.variants.map((v) => sql`select ${g.key}::text, ${v}::text`);
  const parts = groups.flatMap(rowsOf);
  return parts.length
    ? sql.join(parts, sql` union all `)
    : sql`select null::text, null::text where false`;
}
