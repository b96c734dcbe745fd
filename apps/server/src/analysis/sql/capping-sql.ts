import { type SQL, sql } from 'drizzle-orm';
import { type Database, rows, toNumber } from '../../db/connect.ts';
import type { MetricCap, MetricDefinition } from '../../schemas/experiment-config.ts';
import type { ValueScope } from '../reads/value-scope.ts';
import { inAnalysisTransaction } from '../run/analysis-transaction.ts';
import { perUserCtes } from './user-values-sql.ts';

/** One metric's cap as a run applied it (docs/decisions/analysis.md#capping). */
export interface AppliedCap {
  /** The metric's rule as stated. */
  rule: MetricCap;
  /** The bounds the rule gave over the run's window (null: no bound on that side). */
  upper: number | null;
  lower: number | null;
  /** Per arm, the users whose value a bound changed (strictly beyond it). */
  capped: Record<string, number>;
}

/** The applied caps of a run, by metric name; a metric without a cap is absent. */
export type Caps = ReadonlyMap<string, AppliedCap>;
export const NO_CAPS: Caps = new Map();

/** Whether a metric states a cap (absent and null: none). */
export const hasCap = (m: MetricDefinition): m is MetricDefinition & { cap: MetricCap } =>
  m.cap !== undefined && m.cap !== null;

/** The capped metrics, read as their own per-user values: CUPED's covariate plays no part. */
export const cappedDefinitions = (metrics: readonly MetricDefinition[]) =>
  metrics.filter(hasCap).map((m) => ({ ...m, cuped: undefined }));

const col = (name: string, i: number) => sql.raw(`${name}_${i}`);
const float = (x: number) => sql`${String(x)}::float8`;

/**
 * One bound of metric i as SQL over the arms' users `a`: the pooled percentile by linear
 * interpolation (percentile_cont, numpy's default), or the stated value, or null.
 */
function bound(percentile: number | undefined, value: number | undefined, i: number): SQL {
  if (percentile !== undefined)
    return sql`(select percentile_cont(${float(percentile)}) within group (order by a.${col('y', i)}) from a)`;
  return value === undefined ? sql`null::float8` : float(value);
}

/**
 * The statement that finds every capped metric's bounds and counts the users beyond them per
 * arm: the per-user values of the capped metrics over the window (`u`), the arms' users `a`
 * (variants outside the arms are pooled in no percentile), the bounds `b`, one row, and the
 * counts `c`, one row per arm.
 */
export function capsStatement(
  scope: ValueScope,
  capped: readonly (MetricDefinition & { cap: MetricCap })[],
  arms: readonly string[],
  userCtes: (metrics: readonly MetricDefinition[]) => SQL = (ms) => perUserCtes(scope, ms),
): SQL {
  const bounds = capped.map(
    (m, i) => sql`${bound(m.cap.percentile, m.cap.value, i)} as ${col('hi', i)},
      ${bound(m.cap.lower_percentile, m.cap.lower, i)} as ${col('lo', i)}`,
  );
  const counts = capped.map(
    (_, i) =>
      sql`count(*) filter (where a.${col('y', i)} > b.${col('hi', i)} or a.${col('y', i)} < b.${col('lo', i)}) as ${col('n', i)}`,
  );
  const armList = sql.join(
    arms.map((a) => sql`${a}`),
    sql`, `,
  );
  return sql`with ${userCtes(capped)},
      a as (select * from u where u.variant in (${armList})),
      b as materialized (select ${sql.join(bounds, sql`, `)}),
      c as (select a.variant, ${sql.join(counts, sql`, `)} from a cross join b group by a.variant)
    select (select row_to_json(b) from b) as bounds,
      (select coalesce(json_agg(c), '[]'::json) from c) as counts`;
}

/** Each capped metric's bounds and users capped per arm, on one database. */
export async function readCaps(
  db: Database,
  scope: ValueScope,
  metrics: readonly MetricDefinition[],
  arms: readonly string[],
): Promise<Caps> {
  const capped = cappedDefinitions(metrics);
  if (capped.length === 0 || arms.length === 0) return NO_CAPS;
  const [row] = await inAnalysisTransaction(db, (tx) =>
    rows<{ bounds: unknown; counts: unknown }>(tx, capsStatement(scope, capped, arms)),
  );
  return parseCaps(row, capped, arms);
}

/** The caps statement's answer as applied caps (the rule each metric states, its bounds, counts). */
export function parseCaps(
  row: { bounds: unknown; counts: unknown } | undefined,
  capped: readonly (MetricDefinition & { cap: MetricCap })[],
  arms: readonly string[],
): Map<string, AppliedCap> {
  const json = (v: unknown) => (typeof v === 'string' ? JSON.parse(v) : v);
  const b = (json(row?.bounds) ?? {}) as Record<string, unknown>;
  const counts = (json(row?.counts) ?? []) as Array<Record<string, unknown>>;
  const out = new Map<string, AppliedCap>();
  capped.forEach((m, i) => {
    const perArm: Record<string, number> = Object.fromEntries(arms.map((a) => [a, 0]));
    for (const c of counts) perArm[c.variant as string] = toNumber(c[`n_${i}`]);
    out.set(m.name, {
      rule: m.cap,
      upper: numberOrNull(b[`hi_${i}`]),
      lower: numberOrNull(b[`lo_${i}`]),
      capped: perArm,
    });
  });
  return out;
}

const numberOrNull = (v: unknown) => (v === null || v === undefined ? null : toNumber(v));

/**
 * The CTEs `ctes` (ending in `u`) with every capped metric's values held within its bounds:
 * a new `u` over the old one, which a nested WITH keeps out of sight. Metrics without a cap, and
 * runs without any, read `ctes` untouched (the statement is then the one before caps existed).
 * CUPED's covariate x_i is held within the same bounds (its pre-period tail is the same
 * metric's tail); a ratio's x_i is its denominator and passes as it is (ratios take no cap).
 * `covariates` says whether `u` has CUPED's columns (a breakdown's has none).
 */
export function cappedCtes(
  ctes: SQL,
  metrics: readonly MetricDefinition[],
  caps: Caps,
  covariates = true,
): SQL {
  const applied = metrics.map((m) => {
    const cap = caps.get(m.name);
    return cap && (cap.upper !== null || cap.lower !== null) ? cap : null;
  });
  if (applied.every((c) => c === null)) return ctes;
  const columns = metrics.flatMap((m, i) => {
    const cap = applied[i] ?? null;
    const y = sql`${held(sql`u.${col('y', i)}`, cap)} as ${col('y', i)}`;
    if (m.kind === 'ratio') return [y, sql`u.${col('x', i)}`];
    if (m.cuped && covariates)
      return [y, sql`${held(sql`u.${col('x', i)}`, cap)} as ${col('x', i)}`];
    return [y];
  });
  return sql`u as materialized (with ${ctes}
      select u.variant, u.user_id, u.exposures, ${sql.join(columns, sql`, `)} from u)`;
}

/** `v` held within the cap's bounds; null stays null (greatest and least would skip it). */
function held(v: SQL, cap: AppliedCap | null): SQL {
  if (cap === null) return v;
  let out = v;
  if (cap.lower !== null) out = sql`greatest(${out}, ${float(cap.lower)})`;
  if (cap.upper !== null) out = sql`least(${out}, ${float(cap.upper)})`;
  return sql`case when ${v} is null then null else ${out} end`;
}
