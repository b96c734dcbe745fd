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
 * the edges i·((hi − lo)/k) + lo with the last one hi (a single value v widened to v ± 0.5),
 * and `bins`, the count per metric, group, arm and bin. The bin is numpy's: an index guessed
 * by arithmetic, then moved by one where the actual edges say so (bins [a, b), the last
 * closed), for every metric and group in one pass over `u` with a grouping set each. Halves
 * are subtracted (hi/2 − lo/2) so that a range beyond the largest double is not an error.
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
      from bounds
    ),
    steps as (
      select metric, g, lo, hi, (hi / 2 - lo / 2) / ${k} as step, ${k} / nullif(hi / 2 - lo / 2, 0) as norm
      from widened
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

function binCtes(pairs: readonly Pair[], bins: number): SQL {
  const at = (p: Pair, field: string) =>
    sql`max(${sql.raw(field)}) filter (where metric = ${p.m.name} and g = ${p.g.key}) as ${raw(field, p.i, p.j)}`;
  const scalars = pairs.flatMap((p) => ['lo', 'hi', 'step', 'norm'].map((f) => at(p, f)));
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

const scalarsOf = (p: Pair) => ['lo', 'hi', 'step', 'norm'].map((f) => sql`ew.${raw(f, p.i, p.j)}`);

/**
 * numpy's index guess of metric i's value in group j (0-based, at most k − 1), null outside the
 * group, outside its range or without a value. y ≥ lo, so the guess is never negative.
 */
function guessOf(p: Pair, bins: number): SQL {
  const y = valueColumn(p.i);
  const [lo, hi, , norm] = scalarsOf(p);
  const inGroup =
    p.g.variants === 'all'
      ? sql``
      : sql`u.variant in (${sql.join(
          p.g.variants.map((v) => sql`${v}`),
          sql`, `,
        )}) and `;
  return sql`case when ${inGroup}${y} >= ${lo} and ${y} <= ${hi}
    then least(floor((${y} / 2 - ${lo} / 2) * ${norm}), ${sql.raw(String(bins - 1))}) end`;
}

/** The 1-based bin: the guess, moved by one where the actual edges say so. */
function bucketOf(p: Pair, bins: number): SQL {
  const y = valueColumn(p.i);
  const g = sql.raw(`u.g_${p.i}_${p.j}`);
  const [lo, hi, step] = scalarsOf(p);
  const next = sql`case when ${g} + 1 >= ${sql.raw(String(bins))} then ${hi} else 2 * ((${g} + 1) * ${step} + ${lo} / 2) end`;
  return sql`(case when ${y} < 2 * (${g} * ${step} + ${lo} / 2) then ${g} - 1
      when ${g} <> ${sql.raw(String(bins - 1))} and ${y} >= ${next} then ${g} + 1
      else ${g} end)::int + 1`;
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
