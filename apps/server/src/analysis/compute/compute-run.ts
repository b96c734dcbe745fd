import { DEFAULT_MDE, metricDirection } from '@arbiter/contract';
import {
  centred,
  decidePairs,
  EMPTY_COVARIATE_SUMMARY,
  type Histogram,
  metricSummary,
  srmGate,
} from '@arbiter/stats';
import type { PlanLimit } from '../../domain/plans/plans.ts';
import type { ArmStatus, MetricResult } from '../../schemas/analysis-run.ts';
import type { MetricDefinition } from '../../schemas/experiment-config.ts';
import { decide } from '../decision/decision.ts';
import { metricOutcome } from '../decision/metric-outcome.ts';
import { type Arrivals, sampleSize } from '../reads/sample-size.ts';
import type { AppliedCap } from '../sql/capping-sql.ts';
import type { ArmSamples } from '../sql/metric-samples.ts';
import { EMPTY_QUANTILE_ARM, type QuantileArms } from '../sql/quantile-sql.ts';
import type { MetricStats } from '../sql/sufficient-stats.ts';
import { type Method, type PairOutcome, testPair } from './metric-test.ts';
import type { RunRecord } from './run-record.ts';

/** One metric as read for a run: its definition, test, summaries and (when needed) samples. */
export interface MetricInput {
  definition: MetricDefinition;
  method: Method;
  overridden: boolean;
  stats: MetricStats;
  /** Mann–Whitney and permutation only. */
  samples: ArmSamples | null;
  /** Quantile metrics only: each arm's order statistics and per-user counts. */
  quantiles: QuantileArms | null;
  /** Capped metrics only: the cap as the run applied it. */
  cap?: AppliedCap;
}

/** Everything one run decides on; no database behind it. */
export interface RunInputs extends Pick<RunRecord, 'label' | 'kind' | 'windowStart' | 'windowEnd'> {
  windowDays: number;
  control: string;
  /** The arms and their bucket shares, in allocation order (control first). */
  shares: Record<string, number>;
  arms: Record<string, ArmStatus>;
  metrics: MetricInput[];
  retentionTruncated: boolean;
  plan: Pick<PlanLimit, 'max_permutations' | 'max_sample_per_arm'>;
  minEventsPerArm: number;
  sequentialTuning: number;
  /** New exposed users per arm lately: how fast a collecting run's arms grow. */
  arrivals: Arrivals;
}

/**
 * One analysis run, nightly and manual alike: the evaluated-events threshold, the SRM gate,
 * one test per (metric, treatment) pair, then Benjamini–Hochberg across every pair of the run.
 * A nightly run decides `significant` on the fixed-horizon FDR p-value; a manual run, which
 * may be repeated at will, on the FDR p-value of its confidence sequence.
 */
export function computeRun(inputs: RunInputs): RunRecord {
  const record = testedRun(inputs);
  const decision = decide({
    status: record.status,
    srmP: record.srm.p_value,
    collecting: missingEvents(inputs, record),
    metrics: inputs.metrics.map((m) => m.definition),
    treatments: Object.keys(inputs.shares).filter((a) => a !== inputs.control),
    results: record.results,
  });
  if (decision.recommendation !== 'keep_collecting' || record.status !== 'computed')
    return { ...record, decision };
  return { ...record, decision, results: withEstimates(inputs, record.results) };
}

/** Each primary metric's pairs with the users and days a decision still needs. */
function withEstimates(
  inputs: RunInputs,
  results: Record<string, MetricResult>,
): Record<string, MetricResult> {
  const out = { ...results };
  for (const m of inputs.metrics) {
    if (m.definition.category !== 'primary') continue;
    // No per-user mean to size a quantile or a ratio on: the estimate is not offered.
    const sized = m.definition.kind !== 'ratio' && m.definition.quantile === undefined;
    for (const treatment of Object.keys(inputs.shares)) {
      const key = `${m.definition.name}::${treatment}`;
      const r = out[key];
      if (r === undefined) continue;
      const pair = { control: inputs.control, treatment };
      out[key] = {
        ...r,
        ...(sized
          ? sampleSize(m.definition, m.stats.arms, inputs.arms, pair, inputs.arrivals)
          : NOT_SIZED(m.definition)),
      };
    }
  }
  return out;
}

const NOT_SIZED = (m: MetricDefinition) => ({
  mde: m.mde ?? DEFAULT_MDE,
  users_needed_per_arm: null,
  days_to_decision: null,
});

/** "control has 150 of 200 evaluated events": the arms a collecting run waits for. */
function missingEvents(inputs: RunInputs, record: Omit<RunRecord, 'decision'>): string {
  const short = Object.entries(record.arms)
    .filter(([, a]) => a.events < inputs.minEventsPerArm)
    .map(([arm, a]) => `${arm} has ${a.events} of ${inputs.minEventsPerArm}`);
  if (short.length === 0) return 'a run needs a control and at least one treatment arm';
  return `${short.join(', ')} evaluated events`;
}

/** The threshold, the SRM gate and the tests: the run before its decision. */
function testedRun(inputs: RunInputs): Omit<RunRecord, 'decision'> {
  const armNames = Object.keys(inputs.shares);
  const arms = Object.fromEntries(
    armNames.map((a) => [a, inputs.arms[a] ?? { users: 0, events: 0 }]),
  );
  const record: Omit<RunRecord, 'decision'> = {
    label: inputs.label,
    kind: inputs.kind,
    status: 'collecting',
    windowStart: inputs.windowStart,
    windowEnd: inputs.windowEnd,
    srm: { p_value: null, halted: false, observed: {}, expected_shares: { ...inputs.shares } },
    arms,
    results: {},
  };
  const enough =
    armNames.length >= 2 &&
    armNames.includes(inputs.control) &&
    armNames.every((a) => (arms[a] as ArmStatus).events >= inputs.minEventsPerArm);
  if (!enough) return record;
  const srm = srmGate(
    armNames.map((a) => ({ n: (arms[a] as ArmStatus).users })),
    armNames.map((a) => inputs.shares[a] as number),
  );
  record.srm = {
    p_value: srm.p_value,
    halted: srm.halted,
    observed: Object.fromEntries(armNames.map((a) => [a, (arms[a] as ArmStatus).users])),
    expected_shares: { ...inputs.shares },
  };
  if (srm.halted) return { ...record, status: 'srm_halted' };
  const treatments = armNames.filter((a) => a !== inputs.control);
  return { ...record, status: 'computed', results: testMetrics(inputs, treatments, srm.p_value) };
}

type PartialResult = Omit<MetricResult, 'p_value_fdr' | 'significant' | 'sequential' | 'outcome'>;

function testMetrics(
  inputs: RunInputs,
  treatments: string[],
  srmP: number,
): Record<string, MetricResult> {
  const pending: Array<{ key: string; partial: PartialResult; outcome: PairOutcome }> = [];
  for (const metric of inputs.metrics) {
    for (const treatment of treatments) {
      const outcome = testPair(metric.method, pairArms(metric, inputs.control, treatment), {
        plan: inputs.plan,
        cuped: metric.definition.cuped !== undefined,
        sequentialTuning: inputs.kind === 'manual' ? inputs.sequentialTuning : null,
        ratio: metric.definition.kind === 'ratio',
      });
      pending.push({
        key: `${metric.definition.name}::${treatment}`,
        outcome,
        partial: pairResult(inputs, metric, treatment, outcome, srmP),
      });
    }
  }
  const decisions = decidePairs(
    pending.map((p) => ({
      ok: p.outcome.ok,
      p_value: p.outcome.p_value,
      sequential_p_value: p.outcome.sequential?.p_value ?? null,
    })),
    inputs.kind === 'manual' ? 'sequential' : 'fixed',
  );
  return Object.fromEntries(
    pending.map((p, i) => {
      const d = decisions[i] as (typeof decisions)[number];
      const seq = p.outcome.sequential;
      const sequential =
        seq && d.sequential_p_value_fdr !== null
          ? {
              p_value: seq.p_value,
              p_value_fdr: d.sequential_p_value_fdr,
              ci_low: seq.ci_low,
              ci_high: seq.ci_high,
            }
          : null;
      const outcome = metricOutcome(d.significant, p.partial.effect, p.partial.direction);
      return [
        p.key,
        {
          ...p.partial,
          p_value_fdr: d.p_value_fdr,
          significant: d.significant,
          outcome,
          sequential,
        },
      ];
    }),
  );
}

export function pairArms(metric: MetricInput, control: string, treatment: string) {
  const arms = {
    control: metric.stats.arms[control] ?? EMPTY_COVARIATE_SUMMARY,
    treatment: metric.stats.arms[treatment] ?? EMPTY_COVARIATE_SUMMARY,
  };
  const q = metric.quantiles;
  if (q) {
    const arm = (name: string) => q.arms[name] ?? EMPTY_QUANTILE_ARM;
    return {
      ...arms,
      quantile: { control: arm(control), treatment: arm(treatment), level: q.level },
    };
  }
  if (!metric.samples) return arms;
  const { values, capUsed } = metric.samples;
  return {
    ...arms,
    samples: { control: values[control] ?? [], treatment: values[treatment] ?? [], capUsed },
  };
}

/** One (metric, treatment) pair's result before the FDR correction across the run. */
export function pairResult(
  inputs: RunInputs,
  metric: MetricInput,
  treatment: string,
  outcome: PairOutcome,
  srmP: number,
): PartialResult {
  const { definition } = metric;
  const control = inputs.control;
  const meanOf = (arm: string) => {
    if (outcome.values) return outcome.values[arm === control ? 'control' : 'treatment'];
    const s = metric.stats.arms[arm];
    return s && s.n > 0 ? centred(metricSummary(s)).mean : null;
  };
  const { calls, values } = outcome;
  return {
    metric: definition.name,
    kind: definition.kind,
    category: definition.category,
    metric_version: definition.metric_version,
    control,
    treatment,
    test: outcome.test,
    method_overridden: metric.overridden,
    ok: outcome.ok,
    reason: outcome.reason,
    statistic: outcome.statistic,
    p_value: outcome.p_value,
    direction: metricDirection(definition),
    effect: outcome.effect,
    ci_low: outcome.ci_low,
    ci_high: outcome.ci_high,
    lift: outcome.lift,
    n_per_arm: { [control]: outcome.n_control, [treatment]: outcome.n_treatment },
    mean_per_arm: { [control]: meanOf(control), [treatment]: meanOf(treatment) },
    srm_p: srmP,
    permutations_used: outcome.permutations_used,
    sample_cap_used: outcome.sample_cap_used,
    window_days: inputs.windowDays,
    retention_truncated: inputs.retentionTruncated,
    preliminary: inputs.kind === 'manual',
    distribution: showsDistribution(definition)
      ? (metric.stats.histograms[treatment] ?? emptyHistogram(control, treatment))
      : emptyHistogram(control, treatment),
    ...(calls && values
      ? {
          calls_per_arm: { [control]: calls.control, [treatment]: calls.treatment },
          quantile_per_arm: { [control]: values.control, [treatment]: values.treatment },
        }
      : {}),
    cuped: outcome.cuped,
    unadjusted: outcome.unadjusted,
    ...(metric.cap ? { capping: cappingOf(metric.cap, metric.method, control, treatment) } : {}),
  };
}

/** The pair's view of the metric's cap: its bounds and both arms' users capped. */
export function cappingOf(cap: AppliedCap, method: Method, control: string, treatment: string) {
  return {
    cap: cap.rule,
    upper: cap.upper,
    lower: cap.lower,
    users_capped: {
      [control]: cap.capped[control] ?? 0,
      [treatment]: cap.capped[treatment] ?? 0,
    },
    applied: method !== 'mann_whitney',
  };
}

/**
 * Whether a metric's result shows the distribution of its per-user values: a ratio's y is its
 * numerator and a quantile's the per-user mean, neither being what it tests.
 */
export function showsDistribution(metric: MetricDefinition): boolean {
  return metric.kind !== 'ratio' && metric.quantile === undefined;
}

function emptyHistogram(control: string, treatment: string): Histogram {
  return { bin_edges: [], counts: { [control]: [], [treatment]: [] } };
}
