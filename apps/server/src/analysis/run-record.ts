import type { Histogram } from '@arbiter/stats';

/** One (metric, treatment) result: SPEC §2 MetricResult plus the fields DESIGN §8 adds. */
export interface MetricResult {
  metric: string;
  kind: string;
  category: string;
  metric_version: number;
  control: string;
  treatment: string;
  test: string;
  method_overridden: boolean;
  ok: boolean;
  reason: string | null;
  statistic: number;
  p_value: number;
  p_value_fdr: number;
  significant: boolean;
  effect: number;
  ci_low: number;
  ci_high: number;
  lift: number | null;
  n_per_arm: Record<string, number>;
  mean_per_arm: Record<string, number | null>;
  srm_p: number;
  permutations_used: number;
  sample_cap_used: boolean;
  window_days: number;
  retention_truncated: boolean;
  preliminary: boolean;
  distribution: Histogram;
}

export interface SrmStatus {
  p_value: number | null;
  halted: boolean;
  observed: Record<string, number>;
  expected_shares: Record<string, number>;
}

export interface ArmStatus {
  users: number;
  /** Evaluated events: exposure events of the arm in the window. */
  events: number;
}

export type RunStatus = 'collecting' | 'srm_halted' | 'computed';

export interface RunRecord {
  label: string;
  kind: 'nightly' | 'manual';
  status: RunStatus;
  windowStart: Date;
  windowEnd: Date;
  srm: SrmStatus;
  arms: Record<string, ArmStatus>;
  results: Record<string, MetricResult>;
}

export const SRM_THRESHOLD = 0.001;
export const SIGNIFICANCE_THRESHOLD = 0.05;
