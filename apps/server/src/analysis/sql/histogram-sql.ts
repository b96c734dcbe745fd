import { type SQL, sql } from 'drizzle-orm';
import type { MetricDefinition } from '../../schemas/experiment-config.ts';
import { isZeroOne } from './moments-sql.ts';
import { valueColumn } from './user-values-sql.ts';

/** Arms whose histograms share bin edges: a (control, treatment) pair, or every arm (live). */
export interface HistogramGroup {
  key: string;
  /** 'all': every arm that has values (the live view). */
  variants: readonly string[] | 'all';
  /**
   * The metrics binned for this group, by name; every metric when absent. A run leaves out
   * those whose result shows no distribution, so their values are not binned for nothing.
   */
  metrics?: readonly string[];
}

const raw = (name: string, i: number, j: number) => sql.raw(`${name}_${i}_${j}`);

/**
 * numpy.histogram(values, bins, range=(min, max)) per arm, as `histogram()` of @arbiter/stats,
 * after `momentCtes` (it reads the arms' min and max from `cm`): `edges`, per metric and group
 * numpy's linspace over the group's range (a single value v widened to v ± 0.5), computed on
 * halves so that a range beyond the largest double is no error, and `bins`, the count per
 * metric, group, arm and bin, for every metric and group in one pass over `u` with a grouping
 * set each.
 */
export function histogramCtes(
  metrics: readonly MetricDefinition[],
  groups: readonly HistogramGroup[],
  bins: number,
): SQL {
  const k = sql.raw(String(bins));
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
      select metric, g, lo, hi, (hi / 2 - lo / 2) / ${k} as step from widened
    ),
    edges as (
      select metric, g, array(
        select case when i = ${k} then s.hi else 2 * (i * s.step + s.lo / 2) end
        from generate_series(0, ${k}) i order by i) as edges
      from steps s
    ),
    ${binnedCtes(metrics, groups, bins, { countedZeroOne: true })}`;
}

/**
 * `bins`, the count per metric, group, arm and bin of every metric a group bins, over the
 * edges of an `edges(metric, g, edges)` relation before it: the histogram statement's own,
 * or the pooled edges a coordinator of several shards sends each of them. With
 * `countedZeroOne` (a statement with `momentCtes`' `centre`), a 0/1 metric's bins come from
 * each arm's n and ones: two values, two bins, no pass over `u`.
 */
export function binnedCtes(
  metrics: readonly MetricDefinition[],
  groups: readonly HistogramGroup[],
  bins: number,
  { countedZeroOne = false } = {},
): SQL {
  const pairs = binnedPairs(metrics, groups);
  if (pairs.length === 0)
    return sql`bins(metric, g, variant, bucket, c) as (select null::text, null::text, null::text, 0, 0::bigint where false)`;
  const counted = (p: Pair) => countedZeroOne && isZeroOne(p.m);
  return binCtes(
    pairs.filter((p) => !counted(p)),
    pairs.filter(counted),
    bins,
  );
}

/** Every metric and group whose values the group bins. */
export function binnedPairs(
  metrics: readonly MetricDefinition[],
  groups: readonly HistogramGroup[],
): Pair[] {
  return metrics.flatMap((m, i) =>
    groups.flatMap((g, j) => (!g.metrics || g.metrics.includes(m.name) ? [{ m, i, g, j }] : [])),
  );
}

export interface Pair {
  m: MetricDefinition;
  i: number;
  g: HistogramGroup;
  j: number;
}

/**
 * The bins of every metric and group: those of `passed` in one pass over `u`, each value's
 * numpy bin by a binary search of the group's edges (`width_bucket` over the edges array: bin i
 * holds edges[i] <= y < edges[i + 1], the last bin closed, as numpy's own fix-up of its guess
 * settles it), counted per arm with a grouping set per metric and group; those of `counted`
 * (0/1 metrics) as the same bins of 0 and 1, counted n − ones and ones from `centre`.
 *
 * The pass over `u` computes only `width_bucket` per value and pair. What numpy's rule and the
 * group still need is applied to its few grouped rows instead of to every user's (~5 % of
 * the statement's time at 100,000 users): the group's maximum, which `width_bucket` puts one
 * past the last bin, joins the last bin, and the arms outside the group, which the grouping
 * keeps apart by arm anyway, are left out. A null value has no bin (`width_bucket` is strict).
 */
function binCtes(passed: readonly Pair[], counted: readonly Pair[], bins: number): SQL {
  const k = sql.raw(String(bins));
  const edgesOf = [...passed, ...counted].map(
    (p) =>
      sql`max(edges) filter (where metric = ${p.m.name} and g = ${p.g.key}) as ${raw('e', p.i, p.j)}`,
  );
  const parts = counted.map((p) => countedBins(p, k));
  if (passed.length > 0)
    parts.unshift(sql`select v.metric, v.g, b.variant, least(v.bucket, ${k}), sum(b.c)::bigint
      from binned b cross join lateral (values ${sql.join(passed.map(unpivotRow), sql`, `)}) v(metric, g, bucket, mine)
      where v.bucket is not null and v.mine
      group by 1, 2, 3, 4`);
  return sql`ew as (select ${sql.join(edgesOf, sql`, `)} from edges),
    ${passed.length > 0 ? sql`${passBins(passed)},` : sql``}
    bins(metric, g, variant, bucket, c) as (${sql.join(parts, sql` union all `)})`;
}

function passBins(pairs: readonly Pair[]): SQL {
  const buckets = pairs.map(
    (p) =>
      sql`width_bucket(${valueColumn(p.i)}, ew.${raw('e', p.i, p.j)}) as ${raw('k', p.i, p.j)}`,
  );
  const sets = pairs.map((_, n) => sql.raw(`(1, ${n + 2})`));
  return sql`binned as (
      select u.variant, ${sql.join(buckets, sql`, `)}, count(*) as c
      from u cross join ew group by grouping sets (${sql.join(sets, sql`, `)})
    )`;
}

/** A pair's row of the unpivot: its bin of each grouped row, and whether the row's arm is in its group. */
const unpivotRow = (p: Pair) =>
  sql`(${p.m.name}::text, ${p.g.key}::text, b.${raw('k', p.i, p.j)}, ${inGroupOf(p.g, sql`b.variant`)})`;

/**
 * A 0/1 metric's bins in a group: its arms' users at 0 and at 1, in the bins of 0 and 1 (never
 * one bin: a group holding both values has the range [0, 1]).
 */
function countedBins(p: Pair, k: SQL): SQL {
  const n = sql.raw(`c.n_${p.i}`);
  const ones = sql.raw(`c.ones_${p.i}::bigint`);
  return sql`select ${p.m.name}::text, ${p.g.key}::text, c.variant,
      least(width_bucket(v.y, ew.${raw('e', p.i, p.j)}), ${k}), v.c
    from centre c cross join ew
      cross join lateral (values (0::float8, ${n} - ${ones}), (1::float8, ${ones})) v(y, c)
    where v.c > 0 and ${inGroupOf(p.g, sql`c.variant`)} and ew.${raw('e', p.i, p.j)} is not null`;
}

/** Whether `variant` is one of a group's arms (always, for every arm). */
function inGroupOf(g: HistogramGroup, variant: SQL): SQL {
  if (g.variants === 'all') return sql`true`;
  return sql`${variant} in (${sql.join(
    g.variants.map((v) => sql`${v}`),
    sql`, `,
  )})`;
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
