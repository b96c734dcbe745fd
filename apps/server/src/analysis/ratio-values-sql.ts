import { type SQL, sql } from 'drizzle-orm';
import type { MetricDefinition } from '../schemas/experiment-config.ts';

type RatioPart = NonNullable<MetricDefinition['numerator']>;

/** The daily-stats column a ratio part over model calls sums. */
const CALL_PART_COLUMNS: Record<string, string> = {
  cost: 'cost_sum',
  tokens: 'tokens_sum',
  latency: 'latency_sum',
  calls: 'calls',
  errors: 'errors',
};

const partsOf = (m: MetricDefinition): RatioPart[] =>
  m.kind === 'ratio' ? [m.numerator, m.denominator].filter((p) => p !== undefined) : [];

/** The daily-stats columns a ratio metric's parts read. */
export function ratioStatsColumns(m: MetricDefinition): string[] {
  return partsOf(m).flatMap((p) => {
    const column = p.business_metric === undefined ? CALL_PART_COLUMNS[p.of] : undefined;
    return column === undefined ? [] : [column];
  });
}

/** The business metrics a ratio metric's parts read. */
export function ratioBusinessMetrics(m: MetricDefinition): string[] {
  return partsOf(m).flatMap((p) => (p.business_metric === undefined ? [] : [p.business_metric]));
}

/** One part's per-user sum over the user's grouped rows (0 without any). */
function partSum(p: RatioPart): SQL {
  if (p.business_metric === undefined)
    return sql`coalesce(sum(${sql.raw(CALL_PART_COLUMNS[p.of] ?? 'null')}), 0)`;
  const mine = sql`filter (where metric = ${p.business_metric})`;
  return p.of === 'count' ? sql`coalesce(sum(n) ${mine}, 0)` : sql`coalesce(sum(s) ${mine}, 0)`;
}

/**
 * A ratio metric's per-user numerator and denominator, over the arm's users: everyone exposed
 * in the window, plus anyone with a nonzero part. A user whose denominator is 0 still counts
 * in n (the ratio is Σ numerator / Σ denominator over users, not a mean of per-user ratios).
 */
export function ratioValues(m: MetricDefinition): { numerator: SQL; denominator: SQL } {
  if (m.numerator === undefined || m.denominator === undefined)
    throw new Error(`ratio metric ${m.name} without both parts passed validation`);
  const num = partSum(m.numerator);
  const den = partSum(m.denominator);
  const inPopulation = sql`sum(exposures) > 0 or ${num} <> 0 or ${den} <> 0`;
  return {
    numerator: sql`case when ${inPopulation} then ${num}::float8 end`,
    denominator: sql`case when ${inPopulation} then ${den}::float8 end`,
  };
}
