import type { Static } from 'typebox';
import type {
  ArmStatusSchema,
  MetricResultSchema,
  RunStatusSchema,
  SrmSchema,
} from './results-schema.ts';

/** One (metric, treatment) result: the type of `MetricResultSchema`, its one definition. */
export type MetricResult = Static<typeof MetricResultSchema>;
export type SrmStatus = Static<typeof SrmSchema>;
export type ArmStatus = Static<typeof ArmStatusSchema>;
export type RunStatus = Static<typeof RunStatusSchema>;
export type RunKind = 'nightly' | 'manual';

/** What one run computed, before it is stored. */
export interface RunRecord {
  label: string;
  kind: RunKind;
  status: RunStatus;
  windowStart: Date;
  windowEnd: Date;
  srm: SrmStatus;
  arms: Record<string, ArmStatus>;
  results: Record<string, MetricResult>;
}
