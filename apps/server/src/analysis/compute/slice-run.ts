import { srmGate } from '@arbiter/stats';
import type { ArmStatus, Slice, SliceMetricResult } from '../../schemas/analysis-run.ts';
import { pairArms, pairResult, type RunInputs } from './compute-run.ts';
import { testPair } from './metric-test.ts';

/**
 * One slice of a breakdown (docs/decisions/analysis.md#breakdowns), pure: its own SRM check over the
 * slice's exposed users per arm, then each (metric, treatment) pair tested as the run tests it,
 * with raw p-values only. No Benjamini–Hochberg, no always-valid block, no decision: a slice is
 * exploratory and never touches the run's own results. `inputs` are the run's with the slice's
 * arms and metric summaries.
 */
export function computeSlice(value: string, inputs: RunInputs): Slice {
  const armNames = Object.keys(inputs.shares);
  const arms: Record<string, ArmStatus> = Object.fromEntries(
    armNames.map((a) => [a, inputs.arms[a] ?? { users: 0, events: 0 }]),
  );
  const users = armNames.reduce((total, a) => total + (arms[a] as ArmStatus).users, 0);
  const observed = Object.fromEntries(armNames.map((a) => [a, (arms[a] as ArmStatus).users]));
  const slice: Slice = {
    value,
    exploratory: true,
    users,
    arms,
    srm: { p_value: null, halted: false, observed, expected_shares: { ...inputs.shares } },
    results: {},
  };
  // A slice without exposed users has nothing to compare with the bucket shares.
  if (users === 0) return slice;
  const srm = srmGate(
    armNames.map((a) => ({ n: (arms[a] as ArmStatus).users })),
    armNames.map((a) => inputs.shares[a] as number),
  );
  slice.srm = { ...slice.srm, p_value: srm.p_value, halted: srm.halted };
  if (srm.halted) return slice;
  for (const metric of inputs.metrics)
    for (const treatment of armNames.filter((a) => a !== inputs.control)) {
      const outcome = testPair(metric.method, pairArms(metric, inputs.control, treatment), {
        plan: inputs.plan,
        cuped: false,
        sequentialTuning: null,
        ratio: metric.definition.kind === 'ratio',
      });
      const result: SliceMetricResult = {
        ...pairResult(inputs, metric, treatment, outcome, srm.p_value),
        exploratory: true,
      };
      slice.results[`${metric.definition.name}::${treatment}`] = result;
    }
  return slice;
}
