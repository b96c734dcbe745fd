import { sql } from 'drizzle-orm';

/**
 * One statement folds up to `limit` queued batches into the per-user daily aggregates and
 * deletes them from the queue: atomic, so a crash leaves a batch either queued or folded,
 * never both. SKIP LOCKED lets several workers run side by side; rows are upserted in key
 * order so concurrent workers lock them in the same order. Exposures and model calls fold
 * into one user_day_stats row per user-day (tokens = input + output; an error is a non-empty
 * `error`); business events into user_day_business per metric.
 */
export function drainStatement(limit: number) {
  return sql`
    with claimed as (
      delete from ingest_queue
      where seq in (select seq from ingest_queue order by seq limit ${limit} for update skip locked)
      returning events
    ),
    items as (
      select e.*
      from claimed c
      cross join lateral jsonb_to_recordset(c.events) as e(t text, x uuid, u text, v text, d date, err boolean,
        lat float8, tok float8, cost float8, bm text, val float8)
    ),
    stats as (
      insert into user_day_stats (experiment_id, day, variant, user_id, exposures, calls, errors,
        latency_n, latency_sum, latency_sq, tokens_n, tokens_sum, tokens_sq, cost_n, cost_sum, cost_sq)
      select x, d, v, u,
        count(*) filter (where t = 'exposure'),
        count(*) filter (where t = 'model_call'),
        count(*) filter (where t = 'model_call' and err),
        count(lat), coalesce(sum(lat), 0), coalesce(sum(lat * lat), 0),
        count(tok), coalesce(sum(tok), 0), coalesce(sum(tok * tok), 0),
        count(cost), coalesce(sum(cost), 0), coalesce(sum(cost * cost), 0)
      from items
      where t in ('exposure', 'model_call')
      group by x, d, v, u
      order by x, d, v, u
      on conflict (experiment_id, day, variant, user_id) do update set
        exposures = user_day_stats.exposures + excluded.exposures,
        calls = user_day_stats.calls + excluded.calls,
        errors = user_day_stats.errors + excluded.errors,
        latency_n = user_day_stats.latency_n + excluded.latency_n,
        latency_sum = user_day_stats.latency_sum + excluded.latency_sum,
        latency_sq = user_day_stats.latency_sq + excluded.latency_sq,
        tokens_n = user_day_stats.tokens_n + excluded.tokens_n,
        tokens_sum = user_day_stats.tokens_sum + excluded.tokens_sum,
        tokens_sq = user_day_stats.tokens_sq + excluded.tokens_sq,
        cost_n = user_day_stats.cost_n + excluded.cost_n,
        cost_sum = user_day_stats.cost_sum + excluded.cost_sum,
        cost_sq = user_day_stats.cost_sq + excluded.cost_sq
      returning 1
    ),
    business as (
      insert into user_day_business (experiment_id, day, metric, variant, user_id, n, sum, sum_squares)
      select x, d, bm, v, u, count(*), sum(val), sum(val * val)
      from items
      where t = 'business_event'
      group by x, d, bm, v, u
      order by x, d, bm, v, u
      on conflict (experiment_id, day, metric, variant, user_id) do update set
        n = user_day_business.n + excluded.n,
        sum = user_day_business.sum + excluded.sum,
        sum_squares = user_day_business.sum_squares + excluded.sum_squares
      returning 1
    )
    select (select count(*) from items)::int as events,
      (select count(*) from stats)::int + (select count(*) from business)::int as aggregates`;
}
