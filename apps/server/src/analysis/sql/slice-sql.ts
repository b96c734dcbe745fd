import { dimensionMetadataKey, MAX_SLICE_VALUES, OTHER_SLICE } from '@arbiter/contract';
import { type SQL, sql } from 'drizzle-orm';
import { type Database, rows } from '../../db/connect.ts';
import type { MetricDefinition } from '../../schemas/experiment-config.ts';
import type { ValueScope } from '../reads/value-scope.ts';
import { inAnalysisTransaction } from '../run/analysis-transaction.ts';
import { ratioBusinessMetrics, ratioValues } from './ratio-values-sql.ts';
import { isBusinessKind, perUserValue } from './user-values-sql.ts';
import { dailyRows, windowEndInstant } from './window-relations.ts';

/**
 * A breakdown's slices in SQL (docs/decisions/analysis.md#breakdowns). A slice's arm is keyed
 * `<slice value> U+001F <variant>` inside the statements, so the run's per-arm SQL (moments,
 * quantiles, samples) groups by slice and arm unchanged; `splitSliceKey` parts it again. A
 * variant key never holds U+001F, so the last one splits.
 */
export const SLICE_SEPARATOR = '\u001f';

/** The dimension and the values that get their own slice (the rest is `(other)`). */
export interface Slicing {
  dimension: string;
  values: readonly string[];
}

export function splitSliceKey(key: string): { slice: string; variant: string } {
  const at = key.lastIndexOf(SLICE_SEPARATOR);
  return { slice: key.slice(0, at), variant: key.slice(at + 1) };
}

/** The dimension's value of the event `e`: a model call's model, or a string metadata value. */
function dimensionValue(dimension: string): SQL {
  const key = dimensionMetadataKey(dimension);
  if (key === null) return sql`case when e.type = 'model_call' then e.model end`;
  return sql`case when jsonb_typeof(e.metadata -> ${key}) = 'string' then e.metadata ->> ${key} end`;
}

/** The experiment's enrolled, folded events of the window (the fold passes quarantined ones). */
function windowEvents(scope: ValueScope): SQL {
  const { from } = scope.window;
  return sql`e.experiment_id = ${scope.experimentId}::uuid and e.variant is not null
    and e.occurred_at >= (${from}::date)::timestamp at time zone 'UTC'
    and e.occurred_at < ${windowEndInstant(scope)}
    and not exists (select 1 from ingest_quarantine q
      where q.org_id = e.org_id and q.event_id = e.event_id)`;
}

/** The slice an event falls in: its value when among the top values, else `(other)`. */
function sliceOf(slicing: Slicing): SQL {
  const value = dimensionValue(slicing.dimension);
  const top = JSON.stringify(slicing.values);
  return sql`case when ${value} in (select json_array_elements_text(${top}::json))
    then ${value} else ${OTHER_SLICE} end`;
}

const sliceKey = (slice: SQL, variant: SQL) => sql`(${slice}) || chr(31) || ${variant}`;

/**
 * The MAX_SLICE_VALUES values of the dimension with the most users in the window (ties by
 * value): one short row set, so every later statement of the breakdown slices alike.
 */
export async function readSliceValues(
  db: Database,
  scope: ValueScope,
  dimension: string,
): Promise<string[]> {
  const found = await inAnalysisTransaction(db, (tx) =>
    rows<{ value: string }>(
      tx,
      sql`${valueUsers(scope, dimension)} order by count(distinct user_id) desc, value
        limit ${MAX_SLICE_VALUES}`,
    ),
  );
  return found.map((r) => r.value);
}

/** Every value of the dimension in the window with its users (`users`), grouped by value. */
export function valueUsers(scope: ValueScope, dimension: string): SQL {
  return sql`select value, count(distinct user_id) as users from (
      select ${dimensionValue(dimension)} as value, e.user_id from events e where ${windowEvents(scope)}
    ) d where value is not null
    group by value`;
}

/** Each (slice, variant, user) whose events had the slice's value in the window. */
function members(scope: ValueScope, slicing: Slicing): SQL {
  return sql`select distinct ${sliceOf(slicing)} as slice, e.variant, e.user_id from events e
    where ${windowEvents(scope)} and ${dimensionValue(slicing.dimension)} is not null`;
}

/** A slice's members keyed by slice and arm: a quantile metric's users (m = 1 each). */
export function sliceMembers(scope: ValueScope, slicing: Slicing): SQL {
  return sql`select ${sliceKey(sql`m.slice`, sql`m.variant`)} as variant, m.user_id, 1 as m
    from (${members(scope, slicing)}) m`;
}

/** The model calls that carry a value of the dimension, keyed by their slice and arm. */
export function sliceCalls(scope: ValueScope, slicing: Slicing, value: SQL): SQL {
  return sql`select ${sliceKey(sliceOf(slicing), sql`e.variant`)} as variant, e.user_id,
      (${value})::float8 as v from events e
    where ${windowEvents(scope)} and e.type = 'model_call' and (${value}) is not null
      and ${dimensionValue(slicing.dimension)} is not null`;
}

const CALL_COLUMNS = [
  'exposures',
  'calls',
  'errors',
  'latency_n',
  'latency_sum',
  'tokens_n',
  'tokens_sum',
  'cost_sum',
] as const;

/** A call's contribution to each per-call column, as the fold counts it. */
const CALL_ROW = sql`null::float8, 1::float8, (coalesce(e.error, '') <> '')::int::float8,
  (e.latency_ms is not null)::int::float8, coalesce(e.latency_ms, 0)::float8,
  (e.input_tokens is not null or e.output_tokens is not null)::int::float8,
  (coalesce(e.input_tokens, 0) + coalesce(e.output_tokens, 0))::float8,
  coalesce(e.cost_usd, 0)::float8`;

const nulls = (n: number) => sql.raw(Array.from({ length: n }, () => 'null::float8').join(', '));

/**
 * `u` of a breakdown: one row per (slice and arm, user) for every member of a slice, with each
 * metric's per-user value as the run computes it (`perUserValue`, `ratioValues`), except that
 * per-call columns and judge scores count only the calls that carry the slice's value (read
 * from the events: the daily aggregates do not keep models or metadata), while exposures and
 * business outcomes are the user's own over the window. CUPED does not apply in slices.
 */
export function sliceUserCtes(
  scope: ValueScope,
  metrics: readonly MetricDefinition[],
  slicing: Slicing,
): SQL {
  const { experimentId, window } = scope;
  const inWindow = (t: string) =>
    sql`${sql.raw(t)}.experiment_id = ${experimentId}::uuid and ${sql.raw(t)}.day between ${window.from}::date and ${window.to}::date`;
  const columns = sql.raw(CALL_COLUMNS.join(', '));
  const parts = [
    sql`select m.slice, m.variant, m.user_id, null::text, 0::float8, ${nulls(7)}, ${nulls(3)} from m`,
    sql`select m.slice, s.variant, s.user_id, null::text, s.exposures::float8, ${nulls(7)}, ${nulls(3)}
      from ${dailyRows(scope, 'user_day_stats', 's')} join m on m.variant = s.variant and m.user_id = s.user_id where ${inWindow('s')}`,
    sql`select ${sliceOf(slicing)}, e.variant, e.user_id, null::text, ${CALL_ROW}, ${nulls(3)}
      from events e where ${windowEvents(scope)} and e.type = 'model_call'
        and ${dimensionValue(slicing.dimension)} is not null`,
  ];
  const business = [
    ...metrics.filter((m) => isBusinessKind(m.kind)).map((m) => m.name),
    ...metrics.flatMap(ratioBusinessMetrics),
  ];
  if (business.length > 0)
    parts.push(sql`select m.slice, b.variant, b.user_id, b.metric, ${nulls(8)}, b.n::float8,
        b.sum::float8, null::float8
      from ${dailyRows(scope, 'user_day_business', 'b')} join m on m.variant = b.variant and m.user_id = b.user_id
      where ${inWindow('b')} and b.metric in (select json_array_elements_text(${JSON.stringify(business)}::json))`);
  const judged = metrics.filter((m) => m.kind === 'judge').map((m) => m.name);
  if (judged.length > 0)
    // A judge score belongs to the model call it scored: its slice is the call's.
    parts.push(sql`select ${sliceOf(slicing)}, j.variant, j.user_id, j.metric, ${nulls(8)}, null::float8,
        null::float8, j.score::float8
      from ${dailyRows(scope, 'judge_scores', 'j')} join events e on e.org_id = j.org_id and e.event_id = j.event_id
      where ${inWindow('j')} and ${dimensionValue(slicing.dimension)} is not null
        and j.metric in (select json_array_elements_text(${JSON.stringify(judged)}::json))`);
  const values = metrics.map((m, i) => {
    if (m.kind !== 'ratio') return sql`, ${perUserValue(m)} as ${sql.raw(`y_${i}`)}`;
    const { numerator, denominator } = ratioValues(m);
    return sql`, ${numerator} as ${sql.raw(`y_${i}`)}, ${denominator} as ${sql.raw(`x_${i}`)}`;
  });
  return sql`m as materialized (${members(scope, slicing)}),
    u as materialized (
      select ${sliceKey(sql`r.slice`, sql`r.variant`)} as variant, r.user_id,
        sum(exposures) as exposures${sql.join(values, sql``)}
      from (${sql.join(parts, sql` union all `)}) r(slice, variant, user_id, metric, ${columns}, n, s, score)
      group by r.slice, r.variant, r.user_id
    )`;
}
