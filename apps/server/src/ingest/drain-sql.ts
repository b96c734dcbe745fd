import { type SQL, sql } from 'drizzle-orm';

/**
 * Taken first, in its own statement, so the fold that follows in the same transaction reads a
 * snapshot from after any other worker's fold: two workers never fold the same range.
 */
export const lockWatermark = sql`select folded_below from ingest_watermark where id = 1 for update`;

/** The rows of the log one fold takes: a txid stretch less the quarantined rows. */
const NOT_QUARANTINED = sql`not exists (select 1 from ingest_quarantine q
  where q.org_id = e.org_id and q.event_id = e.event_id)`;

/**
 * The aggregate upserts as CTEs over `rowsToFold` (a FROM clause that names the events `e`).
 * Only the fold writes the aggregate tables, one worker at a time (the watermark lock), so
 * upserts need no lock order.
 */
function aggregateUpserts(rowsToFold: SQL) {
  return sql`
    items as (
      select e.type as t, e.experiment_id as x, e.user_id as u, e.variant as v,
        (e.occurred_at at time zone 'UTC')::date as d, coalesce(e.error, '') <> '' as err,
        e.latency_ms::numeric as lat, e.cost_usd::numeric as cost, e.business_metric as bm,
        e.value::numeric as val,
        case when e.input_tokens is not null or e.output_tokens is not null
          then coalesce(e.input_tokens, 0)::numeric + coalesce(e.output_tokens, 0)::numeric end as tok
      from ${rowsToFold}
    ),
    stats as (
      insert into user_day_stats (experiment_id, day, variant, user_id, exposures, calls, errors,
        latency_n, latency_sum, tokens_n, tokens_sum, cost_sum)
      select x, d, v, u,
        count(*) filter (where t = 'exposure'),
        count(*) filter (where t = 'model_call'),
        count(*) filter (where t = 'model_call' and err),
        count(lat), coalesce(sum(lat), 0),
        count(tok), coalesce(sum(tok), 0),
        coalesce(sum(cost), 0)
      from items
      where t in ('exposure', 'model_call') and v is not null
      group by x, d, v, u
      on conflict (experiment_id, day, variant, user_id) do update set
        exposures = user_day_stats.exposures + excluded.exposures,
        calls = user_day_stats.calls + excluded.calls,
        errors = user_day_stats.errors + excluded.errors,
        latency_n = user_day_stats.latency_n + excluded.latency_n,
        latency_sum = user_day_stats.latency_sum + excluded.latency_sum,
        tokens_n = user_day_stats.tokens_n + excluded.tokens_n,
        tokens_sum = user_day_stats.tokens_sum + excluded.tokens_sum,
        cost_sum = user_day_stats.cost_sum + excluded.cost_sum
    ),
    business as (
      insert into user_day_business (experiment_id, day, metric, variant, user_id, n, sum)
      select x, d, bm, v, u, count(*), sum(val)
      from items
      where t = 'business_event' and v is not null
      group by x, d, bm, v, u
      on conflict (experiment_id, day, metric, variant, user_id) do update set
        n = user_day_business.n + excluded.n,
        sum = user_day_business.sum + excluded.sum
    )`;
}

/**
 * Folds the next stretch of the event log into the per-user daily aggregates and moves the
 * watermark past it, atomically: a crash leaves the stretch either folded or not.
 *
 * The log is `events` ordered by `txid`, the id of the transaction that stored each row. The
 * fold stops below the oldest transaction still running (`pg_snapshot_xmin`): everything below
 * it has committed or aborted, so no row can appear behind the watermark later. At most
 * `span` transaction ids are taken at once, starting from the first that stored an event.
 *
 * Values are cast to `numeric` before they are added, so the sums are exact and cannot
 * overflow, whatever values the log holds.
 *
 * Exposures and model calls fold into one user_day_stats row per user-day (tokens = input +
 * output; an error is a non-empty `error`); business events into user_day_business per metric.
 * Events without a variant (the user is not enrolled) are stored but not aggregated. Rows in
 * `ingest_quarantine` are passed over.
 */
export function foldStatement(span: number) {
  return sql`
    with mark as (
      select folded_below as lo from ingest_watermark where id = 1
    ),
    bounds as (${boundsOf(span)}),
    ${aggregateUpserts(sql`bounds b join events e on e.txid >= b.lo and e.txid < b.hi where ${NOT_QUARANTINED}`)},
    moved as (
      update ingest_watermark set folded_below = (select hi from bounds) where id = 1
    )
    -- data-modifying CTEs run to completion whether or not they are read
    select count(*)::int as events from items`;
}

/** `lo` (the watermark) and `hi` (where this fold stops) of the next stretch; reads CTE `mark`. */
function boundsOf(span: number) {
  return sql`select lo, greatest(lo, least(pg_snapshot_xmin(pg_current_snapshot())::text::bigint,
        coalesce((select min(txid) from events where txid >= lo), lo) + ${span}::bigint)) as hi
      from mark`;
}

/** The next stretch's bounds on their own, for the fold that isolates a row it cannot fold. */
export function stretchBounds(span: number) {
  return sql`
    with mark as (select folded_below as lo from ingest_watermark where id = 1)
    ${boundsOf(span)}`;
}

/** The rows of a stretch, in log order, as keys. */
export function stretchRows(lo: number, hi: number) {
  return sql`select e.org_id, e.event_id, e.experiment_id, e.type from events e
    where e.txid >= ${lo}::bigint and e.txid < ${hi}::bigint and ${NOT_QUARANTINED}
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

export function moveWatermark(hi: number) {
  return sql`update ingest_watermark set folded_below = greatest(folded_below, ${hi}::bigint) where id = 1`;
}

/** Events stored but not folded yet: how many, and when the oldest of them was received. */
export const unfoldedCount = sql`
  select count(*)::int as n, min(received_at) as oldest from events
  where txid >= (select folded_below from ingest_watermark where id = 1)`;
