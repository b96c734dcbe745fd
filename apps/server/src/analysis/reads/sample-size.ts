import { DEFAULT_MDE } from '@arbiter/contract';
import {
  type CovariateSummary,
  EMPTY_COVARIATE_SUMMARY,
  metricSummary,
  sampleSizePerArm,
} from '@arbiter/stats';
import type { ArmStatus } from '../../schemas/analysis-run.ts';
import type { MetricDefinition } from '../../schemas/experiment-config.ts';

/** Users newly exposed per arm over the last days of the window, and how many days that was. */
export interface Arrivals {
  /** Days the count covers (fractional when the window ends now, mid-day). */
  days: number;
  newUsers: Record<string, number>;
}

export const NO_ARRIVALS: Arrivals = { days: 0, newUsers: {} };

export interface SampleSize {
  mde: number;
  users_needed_per_arm: number | null;
  days_to_decision: number | null;
}

/**
 * How many users per arm the pair needs to detect the metric's `mde` (docs/decisions/analysis.md#time-to-a-decision),
 * and in how many days the arms get there at their recent arrival rates: per arm, the users it
 * still lacks over its new exposed users per day times the share of its exposed users the
 * metric has a value for; the slower arm decides. Null days when an arm that lacks users has
 * had no new ones.
 */
export function sampleSize(
  definition: Pick<MetricDefinition, 'mde'>,
  summaries: Readonly<Record<string, CovariateSummary>>,
  arms: Readonly<Record<string, ArmStatus>>,
  pair: { control: string; treatment: string },
  arrivals: Arrivals,
): SampleSize {
  const mde = definition.mde ?? DEFAULT_MDE;
  const summary = (arm: string) => metricSummary(summaries[arm] ?? EMPTY_COVARIATE_SUMMARY);
  const needed = sampleSizePerArm(summary(pair.control), summary(pair.treatment), mde);
  if (needed === null) return { mde, users_needed_per_arm: null, days_to_decision: null };
  let days = 0;
  for (const arm of [pair.control, pair.treatment]) {
    const n = summaries[arm]?.n ?? 0;
    const lacking = Math.max(0, needed - n);
    if (lacking === 0) continue;
    const exposed = arms[arm]?.users ?? 0;
    const coverage = exposed > 0 ? Math.min(1, n / exposed) : 0;
    const perDay =
      arrivals.days > 0 ? ((arrivals.newUsers[arm] ?? 0) / arrivals.days) * coverage : 0;
    if (!(perDay > 0)) return { mde, users_needed_per_arm: needed, days_to_decision: null };
    days = Math.max(days, lacking / perDay);
  }
  return { mde, users_needed_per_arm: needed, days_to_decision: Math.ceil(days) };
}
