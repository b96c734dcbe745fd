import { metricDirection } from '@arbiter/contract';
import { srmGate } from '@arbiter/stats';
import { GUARD_ALPHA, SRM_PAUSE_P } from '../../domain/rollouts/guard-level.ts';
import type { GuardrailReading } from '../../schemas/rollout.ts';
import { pairArms, type RunInputs } from '../compute/compute-run.ts';
import { testPair } from '../compute/metric-test.ts';

/** What the guard decides on: the run's inputs, read over the folded data so far. */
export type GuardInputs = Pick<
  RunInputs,
  'control' | 'shares' | 'arms' | 'metrics' | 'plan' | 'minEventsPerArm' | 'sequentialTuning'
>;

export interface GuardVerdict {
  /** The SRM check's p; null while an arm is short of the run's evaluated events. */
  srmP: number | null;
  srmFailed: boolean;
  /** The users per arm the SRM check saw, and the bucket shares it expected. */
  users: Record<string, number>;
  shares: Record<string, number>;
  /** Every guardrail pair, tested or not (an untested one is never worse). */
  readings: GuardrailReading[];
  /** pause: the SRM check failed; violation: a guardrail is worse; none: neither. */
  finding: 'none' | 'srm' | 'violation';
}

/**
 * One evaluation of the guard, pure: the SRM check on the users per arm against the bucket
 * shares, then each guardrail metric (never a primary one) against control with the
 * always-valid confidence sequence manual runs use, each pair at GUARD_ALPHA over the number of
 * pairs, so the guard's chance of ever acting on an unchanged treatment stays below
 * GUARD_ALPHA however often it looks. A pair is worse when its interval excludes zero on the
 * metric's worse side. Until every arm has the run's evaluated events, nothing is tested.
 */
export function guardVerdict(inputs: GuardInputs): GuardVerdict {
  const armNames = Object.keys(inputs.shares);
  const guardrails = inputs.metrics.filter((m) => m.definition.category === 'guardrail');
  const treatments = armNames.filter((a) => a !== inputs.control);
  const enough =
    treatments.length > 0 &&
    armNames.includes(inputs.control) &&
    armNames.every((a) => (inputs.arms[a]?.events ?? 0) >= inputs.minEventsPerArm);
  const pairs = guardrails.length * treatments.length;
  const readings = guardrails.flatMap((metric) =>
    treatments.map((treatment) => reading(inputs, metric, treatment, enough, pairs)),
  );
  const users = Object.fromEntries(armNames.map((a) => [a, inputs.arms[a]?.users ?? 0]));
  const seen = { users, shares: inputs.shares, readings };
  if (!enough) return { srmP: null, srmFailed: false, ...seen, finding: 'none' };
  const srm = srmGate(
    armNames.map((a) => ({ n: inputs.arms[a]?.users ?? 0 })),
    armNames.map((a) => inputs.shares[a] as number),
    SRM_PAUSE_P,
  );
  const finding = srm.halted ? 'srm' : readings.some((r) => r.worse) ? 'violation' : 'none';
  return { srmP: srm.p_value, srmFailed: srm.halted, ...seen, finding };
}

type Metric = GuardInputs['metrics'][number];

/** One guardrail pair's always-valid interval and p at the guard's per-pair level. */
function reading(
  inputs: GuardInputs,
  metric: Metric,
  treatment: string,
  tested: boolean,
  pairs: number,
): GuardrailReading {
  const direction = metricDirection(metric.definition);
  const base = { metric: metric.definition.name, treatment, direction };
  const arms = pairArms(metric, inputs.control, treatment);
  const untested = {
    ...base,
    effect: null,
    ci_low: null,
    ci_high: null,
    p_value: null,
    n_control: arms.control.n,
    n_treatment: arms.treatment.n,
    worse: false,
  };
  if (!tested) return untested;
  const outcome = testPair(metric.method, arms, {
    plan: inputs.plan,
    cuped: metric.definition.cuped !== undefined,
    sequentialTuning: inputs.sequentialTuning,
    sequentialAlpha: GUARD_ALPHA / pairs,
    ratio: metric.definition.kind === 'ratio',
  });
  const seq = outcome.sequential;
  if (!outcome.ok || seq === null) return untested;
  const worse = direction === 'increase' ? seq.ci_high < 0 : seq.ci_low > 0;
  return {
    ...base,
    effect: outcome.effect,
    ci_low: seq.ci_low,
    ci_high: seq.ci_high,
    p_value: seq.p_value,
    n_control: outcome.n_control,
    n_treatment: outcome.n_treatment,
    worse,
  };
}
