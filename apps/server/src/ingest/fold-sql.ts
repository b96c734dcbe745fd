import { type SQL, sql } from 'drizzle-orm';
import { arrayLiteral } from '../db/array-literal.ts';
import { callValueOrNull } from '../db/call-values.ts';
import type { FoldResult } from './event-log.ts';

/**
 * Taken first, in its own statement, so the fold that follows in the same transaction reads a
 * snapshot from after any other worker's fold: two workers never fold the same transactions.
 */
export const lockWatermark = sql`select id from ingest_watermark where id = 1 for update`;

/** The same lock, or no row when another fold holds it (the caller then does not wait). */
export const lockWatermarkIfFree = sql`select id from ingest_watermark where id = 1
  for update skip locked`;

/** The rows of the log one fold takes: the claimed transactions' rows less the quarantined ones. */
export const NOT_QUARANTINED = sql`not exists (select 1 from ingest_quarantine q
  where q.org_id = e.org_id and q.event_id = e.event_id)`;

/**
 * True for the log's rows (`e`) of the transactions in `txids` (an SQL array of ids), which the
 * log's `txid` index finds. Not a join with the list: the planner then weighed the fold's claim
 * ("up to 500 transactions") against a log whose statistics were older than its growth, hashed
 * the ids and scanned `events` whole, so every fold (and every count of the backlog) read every
 * row ever stored. An array the planner cannot see into is costed as a few ids: an index scan.
 */
function ofTransactions(txids: SQL) {
  return sql`e.txid = any(${txids})`;
}

/**
 * `value::numeric` for a `double precision` value, the same number. PostgreSQL's own cast prints
 * the value with `%.15g` and reads the text back, about a quarter of a microsecond a value and
 * three values a model call (bench/server/RESULTS.md); an integral value below 10^15, which that
 * format prints exactly, goes through `bigint` instead and gives the same numeric (scale 0). Any
 * other value, NaN and the infinities included, takes the cast itself.
 */
export function asNumeric(value: SQL) {
  return sql`case when ${value} = trunc(${value}) and abs(${value}) < 1e15::float8
    then (${value})::bigint::numeric else (${value})::numeric end`;
}

/**
 * The model calls' values counted per (experiment, day, arm, kind, value), over `items`. Each
 * call is grouped once per kind by grouping sets: one pass with a hash table a kind, where
 * unpivoting each call into three rows first cost twice as much (bench/server/RESULTS.md). In a
 * kind's set the other kinds' columns are null, so the coalesce is that kind's value, and a call
 * without it forms the null group the `having` drops. Columns as `call_value_counts`'s.
 */
const VALUE_COUNT_ROWS = sql`
      select x, case when grouping(lat_v) = 0 then 'latency'
          when grouping(tok_v) = 0 then 'tokens' else 'cost' end,
        d, v, coalesce(lat_v, tok_v, cost_v), count(*)
      from items
      where t = 'model_call' and v is not null
      group by grouping sets ((x, d, v, lat_v), (x, d, v, tok_v), (x, d, v, cost_v))
      having coalesce(lat_v, tok_v, cost_v) is not null`;

/** Exposures and model calls per (experiment, day, arm, user) over `items`: `user_day_stats`'s columns. */
const STATS_ROWS = sql`
      select x, d, v, u,
        count(*) filter (where t = 'exposure'),
        count(*) filter (where t = 'model_call'),
        count(*) filter (where t = 'model_call' and err),
        count(lat), coalesce(sum(lat), 0),
        count(tok), coalesce(sum(tok), 0),
        coalesce(sum(cost), 0), count(cost)
      from items
      where t in ('exposure', 'model_call') and v is not null
      group by x, d, v, u`;

/** Business events per (experiment, day, metric, arm, user) over `items`: `user_day_business`'s columns. */
const BUSINESS_ROWS = sql`
      select x, d, bm, v, u, count(*), sum(val)
      from items
      where t = 'business_event' and v is not null
      group by x, d, bm, v, u`;

/** The folded form of each event of `rowsToFold` (a FROM clause that names the events `e`). */
function foldItems(rowsToFold: SQL) {
  return sql`
      select e.type as t, e.experiment_id as x, e.user_id as u, e.variant as v,
        (e.occurred_at at time zone 'UTC')::date as d, coalesce(e.error, '') <> '' as err,
        ${asNumeric(sql`e.latency_ms`)} as lat, ${asNumeric(sql`e.cost_usd`)} as cost,
        e.business_metric as bm, ${asNumeric(sql`e.value`)} as val,
        case when e.input_tokens is not null or e.output_tokens is not null
          then ${asNumeric(sql`coalesce(e.input_tokens, 0)`)}
            + ${asNumeric(sql`coalesce(e.output_tokens, 0)`)} end as tok,
        (${callValueOrNull('latency')})::float8 as lat_v, (${callValueOrNull('tokens')})::float8 as tok_v,
        (${callValueOrNull('cost')})::float8 as cost_v
      from ${rowsToFold}`;
}

/** Which aggregate the fold's rows of events are wanted as. */
export type FoldedTable = 'user_day_stats' | 'user_day_business' | 'call_value_counts';

const FOLDED_ROWS: Record<FoldedTable, SQL> = {
  user_day_stats: STATS_ROWS,
  user_day_business: BUSINESS_ROWS,
  call_value_counts: VALUE_COUNT_ROWS,
};

/**
 * The rows the fold would add to `table` for the events of `rowsToFold` (a FROM clause that
 * names the events `e`), in the table's column order: what a read of the aggregates cut at an
 * instant reads for the part of a day before it, computed as the fold computes it.
 */
export function foldedRows(table: FoldedTable, rowsToFold: SQL) {
  return sql`with items as (${foldItems(rowsToFold)}) ${FOLDED_ROWS[table]}`;
}

/**
 * The aggregate upserts as CTEs over `rowsToFold` (a FROM clause that names the events `e`).
 * Only the fold writes the aggregate tables, one worker at a time (the watermark lock), so
 * upserts need no lock order.
 */
function aggregateUpserts(rowsToFold: SQL) {
  return sql`
    items as (${foldItems(rowsToFold)}
    ),
    stats as (
      insert into user_day_stats (experiment_id, day, variant, user_id, exposures, calls, errors,
        latency_n, latency_sum, tokens_n, tokens_sum, cost_sum, cost_n)${STATS_ROWS}
      on conflict (experiment_id, day, variant, user_id) do update set
        exposures = user_day_stats.exposures + excluded.exposures,
        calls = user_day_stats.calls + excluded.calls,
        errors = user_day_stats.errors + excluded.errors,
        latency_n = user_day_stats.latency_n + excluded.latency_n,
        latency_sum = user_day_stats.latency_sum + excluded.latency_sum,
        tokens_n = user_day_stats.tokens_n + excluded.tokens_n,
        tokens_sum = user_day_stats.tokens_sum + excluded.tokens_sum,
        cost_sum = user_day_stats.cost_sum + excluded.cost_sum,
        cost_n = user_day_stats.cost_n + excluded.cost_n
    ),
    value_counts as (
      insert into call_value_counts (experiment_id, kind, day, variant, value, n)${VALUE_COUNT_ROWS}
      on conflict (experiment_id, kind, day, variant, value) do update set
        n = call_value_counts.n + excluded.n
    ),
    business as (
      insert into user_day_business (experiment_id, day, metric, variant, user_id, n, sum)${BUSINESS_ROWS}
      on conflict (experiment_id, day, metric, variant, user_id) do update set
        n = user_day_business.n + excluded.n,
        sum = user_day_business.sum + excluded.sum
    )`;
}

/**
 * The next `span` transactions of the fold's queue (oldest first), deleted from it as they are
 * read: the claim and the fold that follows commit together or not at all.
 */
function claimed(span: number) {
  return sql`delete from ingest_pending where txid in (
      select txid from ingest_pending order by txid limit ${span}::int)
    returning txid`;
}

/**
 * Folds the next transactions of the fold's queue (`ingest_pending`) into the per-user daily
 * aggregates and takes them off the queue, atomically: a crash leaves them either folded and
 * gone or neither. A transaction is in the queue from the moment its events are visible, so
 * the fold never waits for a transaction it does not fold, in this database or another.
 *
 * Values are cast to `numeric` before they are added, so the sums are exact and cannot
 * overflow, whatever values the log holds.
 *
 * Exposures and model calls fold into one user_day_stats row per user-day (tokens = input +
 * output; an error is a non-empty `error`); model calls' values also into call_value_counts per
 * (day, arm, kind, value); business events into user_day_business per metric.
 * Events without a variant (the user is not enrolled) are stored but not aggregated. Rows in
 * `ingest_quarantine` are passed over.
 */
export function foldStatement(span: number) {
  return sql`
    with claimed as (${claimed(span)}),
    ${aggregateUpserts(sql`events e
      where ${ofTransactions(sql`array(select txid from claimed)`)} and ${NOT_QUARANTINED}`)}
    -- data-modifying CTEs run to completion whether or not they are read
    select count(*)::int as events, (select count(*) from claimed)::int as transactions
    from items`;
}

/** The fold statement's answer: the events folded and the transactions it claimed. */
export interface FoldRow {
  events: number;
  transactions: number;
}

/** A fold's result from its statement's row: more may wait when it claimed its whole span. */
export function foldResultOf(row: FoldRow | undefined, span: number): FoldResult {
  return {
    events: Number(row?.events ?? 0),
    quarantined: [],
    more: Number(row?.transactions ?? 0) >= span,
  };
}

/** Claims the next transactions on their own, for the fold that isolates a row it cannot fold. */
export function claimStretch(span: number) {
  return claimed(span);
}

/** The rows of claimed transactions, in log order, as keys. */
export function stretchRows(txids: readonly number[]) {
  return sql`select e.org_id, e.event_id, e.experiment_id, e.type
    from events e
    where ${ofTransactions(sql`${arrayLiteral(txids)}::bigint[]`)} and ${NOT_QUARANTINED}
    order by e.txid, e.org_id, e.event_id`;
}

export interface StoredEventKey {
  org_id: string;
  event_id: string;
  experiment_id: string | null;
  type: string | null;
}

/** Folds exactly these rows (no watermark move): a part of a stretch being isolated. */
export function foldRowsStatement(keys: readonly StoredEventKey[]) {
  const list = JSON.stringify(keys.map((k) => ({ o: k.org_id, i: k.event_id })));
  return sql`
    with ${aggregateUpserts(sql`jsonb_to_recordset(${list}::jsonb) as k(o uuid, i text)
      join events e on e.org_id = k.o and e.event_id = k.i`)}
    select count(*)::int as events from items`;
}

/** Sets aside a row the fold cannot fold, with the database's reason. */
export function quarantineStatement(key: StoredEventKey, reason: string) {
  return sql`insert into ingest_quarantine (org_id, event_id, experiment_id, type, reason)
    values (${key.org_id}::uuid, ${key.event_id}, ${key.experiment_id}::uuid, ${key.type}, ${reason})
    on conflict (org_id, event_id) do nothing`;
}

/** Events stored but not folded yet: how many, and when the oldest of them was received. */
export const unfoldedCount = sql`
  select count(*)::int as n, min(e.received_at) as oldest
  from events e where ${ofTransactions(sql`array(select txid from ingest_pending)`)}`;

/**
 * The fold's position as an instant, read in one statement: every event acknowledged before
 * `folded_through` is in the aggregates. That is the oldest queued transaction's start (its
 * events, and any acknowledged after it, may still be missing), or the statement's own instant
 * when the queue is empty. `now` is the database's clock, which the queue's instants use too.
 */
export const foldPosition = sql`
  select statement_timestamp() as now,
    least(statement_timestamp(), (select min(accepted_at) from ingest_pending)) as folded_through`;
