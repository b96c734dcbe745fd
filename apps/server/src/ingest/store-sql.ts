import { sql } from 'drizzle-orm';
import type { AcceptedEvent } from './event-schema.ts';

/**
 * One statement stores new events, queues them for aggregation and meters them: the events
 * table's primary key is the idempotency check (a retried id loses the insert and is a
 * duplicate), only rows that were inserted are queued and counted, and a crash before commit
 * leaves none of the three. The queue row carries only what aggregation needs.
 */
export function storeQueueAndMeter(
  orgId: string,
  month: string,
  meterShard: number,
  events: readonly AcceptedEvent[],
) {
  return sql`
    with incoming as (
      select * from jsonb_to_recordset(${JSON.stringify(events)}::jsonb) as e(event_id text, type text,
        experiment_id uuid, user_id text, variant text, "timestamp" timestamptz, received_at timestamptz,
        latency_ms float8, input_tokens float8, output_tokens float8, cost_usd float8, model text, error text,
        prompt text, response text, business_metric text, value float8, metadata jsonb, is_test boolean)
    ),
    stored as (
      insert into events (org_id, event_id, type, experiment_id, user_id, variant, occurred_at, received_at,
        latency_ms, input_tokens, output_tokens, cost_usd, model, error, prompt, response, business_metric,
        value, metadata, is_test)
      select ${orgId}::uuid, event_id, type, experiment_id, user_id, variant, "timestamp", received_at,
        latency_ms, input_tokens, output_tokens, cost_usd, model, error, prompt, response, business_metric,
        value, metadata, coalesce(is_test, false)
      from incoming
      on conflict (org_id, event_id) do nothing
      returning event_id, type, experiment_id, user_id, variant, occurred_at, error, latency_ms, input_tokens,
        output_tokens, cost_usd, business_metric, value
    ),
    queued as (
      insert into ingest_queue (org_id, events)
      select ${orgId}::uuid, jsonb_agg(jsonb_build_object(
        't', s.type, 'x', s.experiment_id, 'u', s.user_id, 'v', s.variant, 'd', (s.occurred_at at time zone 'UTC')::date,
        'err', coalesce(s.error, '') <> '', 'lat', s.latency_ms,
        'tok', case when s.input_tokens is not null or s.output_tokens is not null
                    then coalesce(s.input_tokens, 0) + coalesce(s.output_tokens, 0) end,
        'cost', s.cost_usd, 'bm', s.business_metric, 'val', s.value))
      from stored s
      where s.variant is not null
      having count(*) > 0
      returning 1
    ),
    metered as (
      insert into usage_counters (org_id, month, shard, events)
      select ${orgId}::uuid, ${month}, ${meterShard}::int, count(*) from stored
      on conflict (org_id, month, shard) do update set events = usage_counters.events + excluded.events
      returning 1
    )
    select coalesce((select jsonb_agg(event_id) from stored), '[]'::jsonb) as fresh,
      (select count(*) from queued)::int as queued, (select count(*) from metered)::int as metered`;
}
