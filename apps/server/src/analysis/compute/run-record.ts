import type { Static } from 'typebox';
import type {
  ArmStatus,
  Decision,
  MetricResult,
  RunKind,
  SrmStatus,
} from '../../schemas/analysis-run.ts';
import type { RunStatusSchema } from '../results/results-schema.ts';

export type RunStatus = Static<typeof RunStatusSchema>;

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
  decision: Decision;
}
