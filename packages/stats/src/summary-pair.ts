import type { CovariateSummary } from './covariate-summary.ts';
import { type CupedReport, cupedTest } from './cuped.ts';
import type { TwoSampleResult } from './result.ts';
import { confidenceSequence, type SequentialOptions, type SequentialResult } from './sequential.ts';
import type { ArmSummary } from './summary.ts';
import { proportionArm, proportionEstimate, twoProportionZTest } from './two-proportion.ts';
import { welchEstimate, welchTest } from './welch.ts';

/**
 * One (metric, treatment) pair of a run, from summaries alone: what a pure computeRun needs
 * for the tests that do not read samples (Mann–Whitney and permutation still do).
 */
export type SummaryPairInput =
  | {
      method: 'welch_t';
      control: ArmSummary;
      treatment: ArmSummary;
      /** CUPED on: the same users' metric and pre-period covariate; the test runs on these. */
      cuped?: { control: CovariateSummary; treatment: CovariateSummary } | null;
      /** A manual run: the confidence sequence's settings. Absent on nightly runs. */
      sequential?: SequentialOptions | null;
    }
  | {
      method: 'two_proportion_z';
      /** Summaries of 0/1 values. */
      control: ArmSummary;
      treatment: ArmSummary;
      sequential?: SequentialOptions | null;
    };

export interface SummaryPairResult extends TwoSampleResult<'welch_t' | 'two_proportion_z'> {
  /** Present when CUPED ran: the adjusted test is this result, the report says by how much. */
  cuped: CupedReport | null;
  /** With CUPED, the same pair unadjusted (reported beside it); null otherwise. */
  unadjusted: TwoSampleResult<'welch_t'> | null;
  /** Welch–Satterthwaite df of the (adjusted) Welch test; absent for the z-test. */
  df?: number;
  /** The always-valid p and interval of the same estimate; null when not asked or degenerate. */
  sequential: SequentialResult | null;
}

export function testSummaryPair(input: SummaryPairInput): SummaryPairResult {
  const ask = input.sequential ?? null;
  if (input.method === 'two_proportion_z') {
    const c = proportionArm(input.control);
    const t = proportionArm(input.treatment);
    const estimate = ask ? proportionEstimate(c, t) : null;
    return {
      ...twoProportionZTest(c, t),
      cuped: null,
      unadjusted: null,
      sequential: estimate && ask ? confidenceSequence(estimate, ask) : null,
    };
  }
  if (input.cuped) {
    const { estimate, ...result } = cupedTest(input.cuped.control, input.cuped.treatment);
    return { ...result, sequential: estimate && ask ? confidenceSequence(estimate, ask) : null };
  }
  const estimate = ask ? welchEstimate(input.control, input.treatment) : null;
  return {
    ...welchTest(input.control, input.treatment),
    cuped: null,
    unadjusted: null,
    sequential: estimate && ask ? confidenceSequence(estimate, ask) : null,
  };
}
