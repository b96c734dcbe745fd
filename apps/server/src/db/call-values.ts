import { type SQL, sql } from 'drizzle-orm';

/** The per-call kinds a quantile metric may be over. */
export const QUANTILE_KINDS = ['latency', 'tokens', 'cost'] as const;
export type QuantileKind = (typeof QUANTILE_KINDS)[number];

/**
 * A model call's value for each quantile kind over the events row `e` (tokens: input + output),
 * meaningful where `HAS_CALL_VALUE` holds. The fold counts these values and the analysis reads
 * calls above a value by them, so both use this one definition; the `events_call_*` indexes are
 * on the same expressions (written without the `e.` the planner does not see), with
 * `type = 'model_call' and <HAS_CALL_VALUE>` as their predicate.
 */
export const CALL_VALUE: Record<QuantileKind, SQL> = {
  latency: sql`e.latency_ms`,
  tokens: sql`(coalesce(e.input_tokens, 0) + coalesce(e.output_tokens, 0))`,
  cost: sql`e.cost_usd`,
};

/** Whether the call reported a value of the kind (tokens: either count). */
export const HAS_CALL_VALUE: Record<QuantileKind, SQL> = {
  latency: sql`e.latency_ms is not null`,
  tokens: sql`(e.input_tokens is not null or e.output_tokens is not null)`,
  cost: sql`e.cost_usd is not null`,
};

/** The call's value, or null when it reported none. */
export function callValueOrNull(kind: QuantileKind): SQL {
  return sql`case when ${HAS_CALL_VALUE[kind]} then ${CALL_VALUE[kind]} end`;
}

/** The user_day_stats column that counts a user's calls with a value of the kind. */
export const CALL_VALUE_COUNT_COLUMN: Record<QuantileKind, SQL> = {
  latency: sql.raw('latency_n'),
  tokens: sql.raw('tokens_n'),
  cost: sql.raw('cost_n'),
};

export function isQuantileKind(kind: string): kind is QuantileKind {
  return (QUANTILE_KINDS as readonly string[]).includes(kind);
}
