import { type SQL, sql } from 'drizzle-orm';
import { rows, toNumber } from '../../db/connect.ts';
import type { ShardSet } from '../../db/shards/shard-set.ts';
import type { MetricCap, MetricDefinition } from '../../schemas/experiment-config.ts';
import type { ValueScope } from '../reads/value-scope.ts';
import { inAnalysisTransaction } from '../run/analysis-transaction.ts';
import {
  type AppliedCap,
  type Caps,
  cappedDefinitions,
  capsStatement,
  NO_CAPS,
  parseCaps,
} from '../sql/capping-sql.ts';
import { perUserCtes } from '../sql/user-values-sql.ts';
import { scatter } from './scatter.ts';

type Capped = MetricDefinition & { cap: MetricCap };

/**
 * `readCaps` over several shards, each holding a disjoint set of users, in three reads. First
 * each shard counts every capped metric's values in the arms; the coordinator adds them (N)
 * and finds the 0-based ranks percentile_cont interpolates between, ⌊p(N − 1)⌋ and ⌈p(N − 1)⌉.
 * Then each shard sends the values of the tail those ranks fall in: the largest N − ⌊p(N − 1)⌋
 * for an upper percentile, the smallest ⌈q(N − 1)⌉ + 1 for a lower one (a shard's part of the
 * pooled tail is among its own that many); the coordinator merges them and interpolates as
 * PostgreSQL does. Last each shard counts its users beyond the bounds, and the counts add up.
 * A cap by value skips the first two reads' work for that metric.
 */
export async function readShardedCaps(
  shards: ShardSet,
  scope: ValueScope,
  metrics: readonly MetricDefinition[],
  arms: readonly string[],
): Promise<Caps> {
  const capped = cappedDefinitions(metrics);
  if (capped.length === 0 || arms.length === 0) return NO_CAPS;
  const counted = await scatter(shards, (db) =>
    inAnalysisTransaction(db, (tx) =>
      rows<Record<string, unknown>>(tx, countsOf(scope, capped, arms)),
    ),
  );
  const totals = capped.map((_, i) =>
    counted.reduce((sum, [row]) => sum + toNumber(row?.[`n_${i}`] ?? 0), 0),
  );
  const bounds = await pooledBounds(shards, scope, capped, arms, totals);
  // The bounds as fixed values: each shard counts its users beyond them.
  const fixed = capped.map((m, i) => ({ ...m, cap: asValues(bounds[i] as Bounds) }));
  const parts = await scatter(shards, (db) =>
    inAnalysisTransaction(db, (tx) =>
      rows<{ bounds: unknown; counts: unknown }>(tx, capsStatement(scope, fixed, arms)),
    ),
  );
  const out = new Map<string, AppliedCap>();
  capped.forEach((m, i) => {
    const perArm: Record<string, number> = Object.fromEntries(arms.map((a) => [a, 0]));
    for (const [part] of parts)
      for (const [arm, n] of Object.entries(parseCaps(part, fixed, arms).get(m.name)?.capped ?? {}))
        perArm[arm] = (perArm[arm] ?? 0) + n;
    const b = bounds[i] as Bounds;
    out.set(m.name, { rule: m.cap, upper: b.upper, lower: b.lower, capped: perArm });
  });
  return out;
}

interface Bounds {
  upper: number | null;
  lower: number | null;
}

const asValues = (b: Bounds): MetricCap => ({
  ...(b.upper === null ? {} : { value: b.upper }),
  ...(b.lower === null ? {} : { lower: b.lower }),
});

const col = (name: string, i: number) => sql.raw(`${name}_${i}`);

function armUsers(scope: ValueScope, capped: readonly Capped[], arms: readonly string[]): SQL {
  const armList = sql.join(
    arms.map((a) => sql`${a}`),
    sql`, `,
  );
  return sql`with ${perUserCtes(scope, capped)},
    a as (select * from u where u.variant in (${armList}))`;
}

function countsOf(scope: ValueScope, capped: readonly Capped[], arms: readonly string[]): SQL {
  const counts = capped.map((_, i) => sql`count(a.${col('y', i)}) as ${col('n', i)}`);
  return sql`${armUsers(scope, capped, arms)} select ${sql.join(counts, sql`, `)} from a`;
}

/** Each metric's bounds: its stated values, or the pooled percentiles from the shards' tails. */
async function pooledBounds(
  shards: ShardSet,
  scope: ValueScope,
  capped: readonly Capped[],
  arms: readonly string[],
  totals: readonly number[],
): Promise<Bounds[]> {
  const tails = capped.flatMap((m, i) => {
    const n = totals[i] as number;
    const out: Array<{ i: number; side: 'upper' | 'lower'; take: number; p: number }> = [];
    if (m.cap.percentile !== undefined && n > 0)
      out.push({
        i,
        side: 'upper',
        p: m.cap.percentile,
        take: n - Math.floor(m.cap.percentile * (n - 1)),
      });
    if (m.cap.lower_percentile !== undefined && n > 0)
      out.push({
        i,
        side: 'lower',
        p: m.cap.lower_percentile,
        take: Math.ceil(m.cap.lower_percentile * (n - 1)) + 1,
      });
    return out;
  });
  const bounds: Bounds[] = capped.map((m) => ({
    upper: m.cap.value ?? null,
    lower: m.cap.lower ?? null,
  }));
  if (tails.length === 0) return bounds;
  const parts = await scatter(shards, (db) =>
    inAnalysisTransaction(db, (tx) =>
      Promise.all(
        tails.map((t) =>
          rows<{ y: unknown }>(
            tx,
            sql`${armUsers(scope, capped, arms)} select a.${col('y', t.i)} as y from a
              where a.${col('y', t.i)} is not null
              order by a.${col('y', t.i)} ${sql.raw(t.side === 'upper' ? 'desc' : 'asc')} limit ${t.take}`,
          ),
        ),
      ),
    ),
  );
  tails.forEach((t, k) => {
    const all = parts.flatMap((p) => (p[k] ?? []).map((r) => toNumber(r.y))).sort((a, b) => a - b);
    // The pooled tail: the `take` largest (or smallest) of the shards' tails together.
    const values = t.side === 'upper' ? all.slice(all.length - t.take) : all.slice(0, t.take);
    const n = totals[t.i] as number;
    const b = bounds[t.i] as Bounds;
    b[t.side] = interpolated(values, n, t.p, t.side);
  });
  return bounds;
}

/**
 * percentile_cont(p) of N values from the tail that holds its two ranks: the largest values
 * (upper) or the smallest (lower), as PostgreSQL computes it: x[f] + (h − f)(x[c] − x[f]) with
 * h = p(N − 1), f = ⌊h⌋, c = ⌈h⌉ (0-based ranks of the sorted values).
 */
export function interpolated(
  tail: readonly number[],
  n: number,
  p: number,
  side: 'upper' | 'lower',
): number {
  const h = p * (n - 1);
  const f = Math.floor(h);
  const c = Math.ceil(h);
  const sorted = [...tail].sort((a, b) => a - b);
  // The tail's values hold ranks n − sorted.length … n − 1 (upper) or 0 … sorted.length − 1.
  const offset = side === 'upper' ? n - sorted.length : 0;
  const at = (rank: number) => sorted[rank - offset] as number;
  const first = at(f);
  if (c === f) return first;
  return first + (at(c) - first) * (h - f);
}
