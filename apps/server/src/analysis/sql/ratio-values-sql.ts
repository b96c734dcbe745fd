import { type SQL, sql } from 'drizzle-orm';
import type { MetricDefinition } from '../../schemas/experiment-config.ts';
import { GROUPED_ROWS, type UserRows } from './user-rows-sql.ts';

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

/** One part's per-user sum over the user's rows (0 without any). */
function partSum(p: RatioPart, rows: UserRows): SQL {
  if (p.business_metric === undefined)
    return sql`coalesce(${rows.stat(CALL_PART_COLUMNS[p.of] ?? 'null')}, 0)`;
  return sql`coalesce(${rows.outcome(p.business_metric, p.of === 'count' ? 'n' : 's')}, 0)`;
}

/**
 * A ratio metric's per-user numerator and denominator, over the arm's users: everyone exposed
 * in the window, plus anyone with a nonzero part. A user whose denominator is 0 still counts
 * in n (the ratio is Σ numerator / Σ denominator over users, not a mean of per-user ratios).
 */
export function ratioValues(
  m: MetricDefinition,
  rows: UserRows = GROUPED_ROWS,
): { numerator: SQL; denominator: SQL } {
  if (m.numerator === undefined || m.denominator === undefined)
    throw new Error(`ratio metric ${m.name} without both parts passed validation`);
  const num = partSum(m.numerator, rows);
  const den = partSum(m.denominator, rows);
  const inPopulation = sql`${rows.stat('exposures')} > 0 or ${num} <> 0 or ${den} <> 0`;
  return {
    numerator: sql`case when ${inPopulation} then ${num}::float8 end`,
    denominator: sql`case when ${inPopulation} then ${den}::float8 end`,
  };
}
