import { sql } from 'drizzle-orm';

/**
 * One statement moves up to `limit` queued batches into the event store and the per-user daily
 * aggregates, and deletes them from the queue: atomic, so a crash leaves a batch either queued
 * or stored, never both. SKIP LOCKED lets several workers run side by side. An event already
 * stored (a replay) is skipped and not aggregated again. Exposures and model calls fold into one
 * user_day_stats row per user-day (tokens = input + output; an error is a non-empty `error`);
 * business events into user_day_business per metric. Users outside every variant are stored
 * but belong to no arm, so they are not aggregated.
 */
export function drainStatement(limit: number) {
  return sql`
    with claimed as (
      delete from ingest_queue
      where seq in (select seq from ingest_queue order by seq limit ${limit} for update skip locked)
      returning org_id, events
    ),
    stored as (
      insert into events (org_id, event_id, type, experiment_id, user_id, variant, occurred_at, received_at,
        latency_ms, input_tokens, output_tokens, cost_usd, model, error, prompt, response, business_metric,
        value, metadata, is_test)
      select c.org_id, e.event_id, e.type, e.experiment_id, e.user_id, e.variant, e."timestamp", e.received_at,
        e.latency_ms, e.input_tokens, e.output_tokens, e.cost_usd, e.model, e.error, e.prompt, e.response,
        e.business_metric, e.value, e.metadata, coalesce(e.is_test, false)
      from claimed c
      cross join lateral jsonb_to_recordset(c.events) as e(event_id text, type text, experiment_id uuid,
        user_id text, variant text, "timestamp" timestamptz, received_at timestamptz, latency_ms float8,
        input_tokens float8, output_tokens float8, cost_usd float8, model text, error text, prompt text,
        response text, business_metric text, value float8, metadata jsonb, is_test boolean)
      on conflict (org_id, event_id) do nothing
      returning experiment_id, occurred_at, user_id, variant, type, error, latency_ms, input_tokens,
        output_tokens, cost_usd, business_metric, value
    ),
    stats as (
      insert into user_day_stats (experiment_id, day, variant, user_id, exposures, calls, errors,
        latency_n, latency_sum, latency_sq, tokens_n, tokens_sum, tokens_sq, cost_n, cost_sum, cost_sq)
      select experiment_id, day, variant, user_id,
        count(*) filter (where type = 'exposure'),
        count(*) filter (where type = 'model_call'),
        count(*) filter (where type = 'model_call' and coalesce(error, '') <> ''),
        count(latency_ms), coalesce(sum(latency_ms), 0), coalesce(sum(latency_ms * latency_ms), 0),
        count(tokens), coalesce(sum(tokens), 0), coalesce(sum(tokens * tokens), 0),
        count(cost_usd), coalesce(sum(cost_usd), 0), coalesce(sum(cost_usd * cost_usd), 0)
      from (
        select s.*, (s.occurred_at at time zone 'UTC')::date as day,
          case when s.input_tokens is not null or s.output_tokens is not null
               then coalesce(s.input_tokens, 0) + coalesce(s.output_tokens, 0) end as tokens
        from stored s
        where s.variant is not null and s.type in ('exposure', 'model_call')
      ) x
      group by experiment_id, day, variant, user_id
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
      select s.experiment_id, (s.occurred_at at time zone 'UTC')::date, s.business_metric, s.variant, s.user_id,
        count(*), sum(s.value), sum(s.value * s.value)
      from stored s
      where s.variant is not null and s.type = 'business_event'
      group by 1, 2, 3, 4, 5
      on conflict (experiment_id, day, metric, variant, user_id) do update set
        n = user_day_business.n + excluded.n,
        sum = user_day_business.sum + excluded.sum,
        sum_squares = user_day_business.sum_squares + excluded.sum_squares
      returning 1
    )
    select (select count(*) from claimed)::int as batches, (select count(*) from stored)::int as events,
      (select count(*) from stats)::int + (select count(*) from business)::int as aggregates`;
}
