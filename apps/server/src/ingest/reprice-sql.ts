import { type SQL, sql } from 'drizzle-orm';
import { asNumeric, NOT_QUARANTINED } from './fold-sql.ts';

/** The window a re-price covers: calls at or after `fromMs` and before `toMs` (null: unbounded). */
export interface RepriceWindow {
  fromMs: number | null;
  toMs: number | null;
}

/** A model call the table priced, or could have: what a re-price reads of it. */
export interface PricedCallRow {
  event_id: string;
  model: string;
  at_ms: number;
  input_tokens: number | null;
  output_tokens: number | null;
  cached_input_tokens: number | null;
  reasoning_tokens: number | null;
  cost_usd: number | null;
  priced_by: string | null;
}

const timeBound = (column: SQL, op: '>=' | '<', ms: number | null) =>
  ms === null ? sql`true` : sql`${column} ${sql.raw(op)} to_timestamp(${ms / 1000}::float8)`;

/**
 * The org's next `limit` model calls after `after` (by event id) whose cost is the server's:
 * priced by a row (`priced_by`), or left unpriced though they name a model and count tokens.
 * A cost the caller sent (no `priced_by`) is never read. With `lock`, locked until the batch
 * commits.
 */
export function pricedCallsAfter(
  orgId: string,
  after: string,
  window: RepriceWindow,
  limit: number,
  lock: boolean,
) {
  return sql`
    select e.event_id, e.model, (extract(epoch from e.occurred_at) * 1000)::float8 as at_ms,
      e.input_tokens, e.output_tokens, e.cached_input_tokens, e.reasoning_tokens,
      e.cost_usd, e.priced_by
    from events e
    where e.org_id = ${orgId} and e.event_id > ${after} and e.type = 'model_call'
      and e.model is not null
      and (e.priced_by is not null or (e.cost_usd is null
        and (e.input_tokens is not null or e.output_tokens is not null)))
      and ${timeBound(sql`e.occurred_at`, '>=', window.fromMs)}
      and ${timeBound(sql`e.occurred_at`, '<', window.toMs)}
    order by e.event_id
    limit ${limit}::int
    ${lock ? sql`for update of e` : sql``}`;
}

/** A call's new cost and row: null where no row prices it any more. */
export interface Repriced {
  event_id: string;
  cost: number | null;
  ref: string | null;
}

/**
 * Stores the calls' new costs and rows, and moves each folded call's cost in the aggregates the
 * fold made of it: the user-day's `cost_sum` and `cost_n` in user_day_stats, and one count from
 * the old value to the new in call_value_counts (kind `cost`), as a fresh fold would have
 * counted them. A call the fold has not taken yet (its transaction still in `ingest_pending`),
 * a quarantined one, or one without an arm is only stored: the fold reads its new cost later, or
 * never. Every CTE reads the calls as they were before the statement, so `moved` sees old costs.
 */
export function applyRepricing(orgId: string, calls: readonly Repriced[]) {
  return sql`
    with c as (
      select * from jsonb_to_recordset(${JSON.stringify(calls)}::jsonb)
        as c(event_id text, cost float8, ref text)
    ),
    moved as (
      select e.experiment_id as x, (e.occurred_at at time zone 'UTC')::date as d,
        e.variant as v, e.user_id as u, e.cost_usd as old_cost, c.cost as new_cost
      from events e join c on e.event_id = c.event_id
      where e.org_id = ${orgId} and e.variant is not null
        and not exists (select 1 from ingest_pending p where p.txid = e.txid)
        and ${NOT_QUARANTINED}
    ),
    stats as (
      update user_day_stats s
      set cost_sum = s.cost_sum + m.delta, cost_n = s.cost_n + m.dn
      from (
        select x, d, v, u,
          sum(coalesce(${asNumeric(sql`new_cost`)}, 0) - coalesce(${asNumeric(sql`old_cost`)}, 0))
            as delta,
          sum((new_cost is not null)::int - (old_cost is not null)::int) as dn
        from moved group by x, d, v, u
      ) m
      where s.experiment_id = m.x and s.day = m.d and s.variant = m.v and s.user_id = m.u
    ),
    counts as (
      insert into call_value_counts (experiment_id, kind, day, variant, value, n)
      select x, 'cost', d, v, value, sum(dn)
      from (
        select x, d, v, old_cost as value, -1 as dn from moved where old_cost is not null
        union all
        select x, d, v, new_cost, 1 from moved where new_cost is not null
      ) t
      group by x, d, v, value
      having sum(dn) <> 0
      on conflict (experiment_id, kind, day, variant, value) do update set
        n = call_value_counts.n + excluded.n
    ),
    stored as (
      update events e set cost_usd = c.cost, priced_by = c.ref
      from c where e.org_id = ${orgId} and e.event_id = c.event_id
      returning 1
    )
    select (select count(*) from stored)::int as stored, (select count(*) from moved)::int as moved`;
}

/**
 * The cost counts a re-price emptied, which a fresh fold would not have: after `applyRepricing`,
 * in the same transaction, over the experiments of the calls it moved.
 */
export function dropEmptiedCounts(orgId: string, ids: readonly string[]) {
  return sql`
    delete from call_value_counts k
    where k.kind = 'cost' and k.n <= 0 and k.experiment_id in (
      select e.experiment_id from events e
      where e.org_id = ${orgId}
        and e.event_id in (select jsonb_array_elements_text(${JSON.stringify(ids)}::jsonb)))`;
}
