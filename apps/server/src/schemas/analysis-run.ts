import { METRIC_DIRECTIONS } from '@arbiter/contract';
import { type Static, type TSchema, Type } from 'typebox';
import { MetricCapSchema } from './experiment-config.ts';

/**
 * The shapes an analysis run stores in its `analysis_runs` JSON columns (`srm`, `arms`,
 * `results`), which `db/schema.ts` types with `.$type<>()`. They are the one definition: the
 * OpenAPI document's Results (`analysis/results/results-schema.ts`) is built from them, and the types
 * below are `Static<>` of them.
 */
const Nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);

export const DistributionSchema = Type.Object({
  bin_edges: Type.Array(Type.Number()),
  counts: Type.Record(Type.String(), Type.Array(Type.Integer())),
});

export const CupedReportSchema = Type.Object(
  {
    theta: Type.Number({
      description: 'Pooled regression coefficient of the metric on its covariate',
    }),
    variance_reduction: Type.Number({
      description: '1 − Var(adjusted effect)/Var(unadjusted effect)',
    }),
    covariate_coverage: Type.Number({
      description: 'Share of users with pre-period data; the others enter with covariate 0',
    }),
  },
  {
    description:
      'CUPED (metric opted in with cuped.covariate_days): the test, CI, lift and FDR use the adjusted estimate',
  },
);

export const UnadjustedSchema = Type.Object(
  {
    statistic: Type.Number(),
    p_value: Type.Number(),
    effect: Type.Number(),
    ci_low: Type.Number(),
    ci_high: Type.Number(),
  },
  { description: 'With CUPED: the same pair without the adjustment, for comparison' },
);

export const SequentialSchema = Type.Object(
  {
    p_value: Type.Number({ description: 'Always-valid p-value of the confidence sequence' }),
    p_value_fdr: Type.Number({
      description: 'Benjamini–Hochberg over the sequential p-values of the run',
    }),
    ci_low: Type.Number(),
    ci_high: Type.Number(),
  },
  {
    description:
      'Manual runs: the asymptotic confidence sequence (Waudby-Smith et al.) of the same estimate, valid however often a manual run is repeated; significant is decided on its p_value_fdr. Null on nightly runs and when not computable',
  },
);

/** A capped metric's cap as the run applied it (docs/decisions/analysis.md#capping). */
export const CappingSchema = Type.Object(
  {
    cap: MetricCapSchema,
    upper: Nullable(
      Type.Number({ description: 'The value per-user values above were set to; null: none' }),
    ),
    lower: Nullable(
      Type.Number({ description: 'The value per-user values below were set to; null: none' }),
    ),
    users_capped: Type.Record(Type.String(), Type.Integer(), {
      description: 'Per arm, the users whose value was beyond a bound (and so set to it)',
    }),
    applied: Type.Boolean({
      description:
        'false for mann_whitney: the ranks, effect and means are of the uncapped values (users_capped says what the cap would have touched)',
    }),
  },
  {
    description:
      'The metric’s cap: the rule it states, the bounds it gave over the run’s window (percentiles pooled over both arms) and the users it touched',
  },
);

export const METRIC_OUTCOMES = ['better', 'worse', 'inconclusive'] as const;
export type MetricOutcome = (typeof METRIC_OUTCOMES)[number];

/** MetricResult: the contract's required fields plus ours (docs/decisions/analysis.md#the-results-response). */
export const MetricResultSchema = Type.Object({
  metric: Type.String(),
  kind: Type.String(),
  category: Type.String(),
  metric_version: Type.Integer(),
  control: Type.String(),
  treatment: Type.String(),
  test: Type.String(),
  method_overridden: Type.Boolean(),
  ok: Type.Boolean({ description: 'false when the test was not computable; reason says why' }),
  reason: Nullable(Type.String()),
  statistic: Type.Number(),
  p_value: Type.Number({ description: 'Raw p-value; never used for the decision' }),
  p_value_fdr: Type.Number({
    description: 'Benjamini–Hochberg corrected across all pairs of the run',
  }),
  significant: Type.Boolean({
    description:
      'Nightly: ok and p_value_fdr < 0.05. Manual (preliminary) runs: ok and sequential.p_value_fdr < 0.05',
  }),
  direction: Type.Enum(METRIC_DIRECTIONS, {
    description: 'The metric’s direction when the run computed: which way is better',
  }),
  outcome: Type.Enum(METRIC_OUTCOMES, {
    description:
      'better or worse when significant, by the sign of the effect against the direction; else inconclusive',
  }),
  effect: Type.Number({ description: 'treatment − control' }),
  ci_low: Type.Number(),
  ci_high: Type.Number(),
  lift: Nullable(Type.Number()),
  n_per_arm: Type.Record(Type.String(), Type.Integer(), {
    description: 'Users per arm (a quantile metric too: its calls are in calls_per_arm)',
  }),
  mean_per_arm: Type.Record(Type.String(), Nullable(Type.Number()), {
    description:
      'The metric’s value per arm: the mean of per-user values; a ratio metric’s Σ numerator / Σ denominator; a quantile metric’s estimate',
  }),
  calls_per_arm: Type.Optional(
    Type.Record(Type.String(), Type.Integer(), {
      description: 'Quantile metrics: the model calls per arm the quantile is taken over',
    }),
  ),
  quantile_per_arm: Type.Optional(
    Type.Record(Type.String(), Type.Number(), {
      description: 'Quantile metrics: the estimate per arm, x(⌈n·q⌉) of the arm’s sorted calls',
    }),
  ),
  srm_p: Type.Number(),
  permutations_used: Type.Integer(),
  sample_cap_used: Type.Boolean({
    description:
      'Mann–Whitney and permutation: an arm had more users than the plan’s max_sample_per_arm, and the test ran on a seeded uniform sample of that many',
  }),
  window_days: Type.Integer(),
  retention_truncated: Type.Boolean(),
  preliminary: Type.Boolean(),
  distribution: DistributionSchema,
  mde: Type.Optional(
    Type.Number({
      description:
        'Primary metrics of a keep_collecting run: the relative minimum detectable effect the estimate assumes',
    }),
  ),
  users_needed_per_arm: Type.Optional(
    Nullable(
      Type.Integer({
        description:
          'Primary metrics of a keep_collecting run: ⌈(z₀.₉₇₅ + z₀.₈)² (s_c² + s_t²) / (mde · |mean_c|)²⌉ users with a value per arm; null when the control mean is 0, and for quantile and ratio metrics',
      }),
    ),
  ),
  days_to_decision: Type.Optional(
    Nullable(
      Type.Integer({
        description:
          'Primary metrics of a keep_collecting run: days until both arms have users_needed_per_arm at the last 7 days’ arrival rates (0 when they have); null when no user arrived',
      }),
    ),
  ),
  cuped: Type.Optional(Nullable(CupedReportSchema)),
  unadjusted: Type.Optional(Nullable(UnadjustedSchema)),
  sequential: Type.Optional(Nullable(SequentialSchema)),
  capping: Type.Optional(CappingSchema),
});

export const RECOMMENDATIONS = ['ship', 'keep_control', 'keep_collecting', 'halted'] as const;

/** What a run recommends (docs/decisions/analysis.md#recommendations), stored with it. */
export const DecisionSchema = Type.Object(
  {
    recommendation: Type.Enum(RECOMMENDATIONS, {
      description:
        'ship: a treatment has a primary metric better, none worse, no guardrail broken. keep_control: every treatment has a primary metric worse or a guardrail broken. halted: the SRM gate halted the run. keep_collecting: otherwise, and whenever the run has no primary metric and no broken guardrail in every treatment',
    }),
    treatment: Nullable(
      Type.String({
        description:
          'The treatment to ship (of several shippable, the largest lift on the first primary metric in its direction); null unless ship',
      }),
    ),
    reasons: Type.Array(Type.String(), { description: 'Short sentences naming the metrics' }),
  },
  { description: 'The run’s recommendation' },
);

/** A guardrail whose outcome is worse: what the results page's banner shows. */
export const GuardrailViolationSchema = Type.Object({
  metric: Type.String(),
  treatment: Type.String(),
  direction: Type.Enum(METRIC_DIRECTIONS),
  effect: Type.Number(),
  lift: Nullable(Type.Number()),
  ci_low: Type.Number({ description: 'The interval the decision was made on' }),
  ci_high: Type.Number(),
  p_value_fdr: Type.Number({ description: 'The FDR-corrected p-value the decision was made on' }),
  always_valid: Type.Boolean({
    description:
      'true on manual runs: interval and p-value are the always-valid sequential ones; false on nightly runs (fixed-horizon)',
  }),
});

export const SrmSchema = Type.Object({
  p_value: Nullable(Type.Number()),
  halted: Type.Boolean(),
  observed: Type.Optional(Type.Record(Type.String(), Type.Integer())),
  expected_shares: Type.Optional(Type.Record(Type.String(), Type.Number())),
});

export const ArmStatusSchema = Type.Object({
  users: Type.Integer(),
  events: Type.Integer({ description: 'Evaluated events: exposures of the arm in the window' }),
});

/** One (metric, treatment) result: the type of `MetricResultSchema`, its one definition. */
export type MetricResult = Static<typeof MetricResultSchema>;
export type SrmStatus = Static<typeof SrmSchema>;
export type Decision = Static<typeof DecisionSchema>;
export type GuardrailViolation = Static<typeof GuardrailViolationSchema>;
export type ArmStatus = Static<typeof ArmStatusSchema>;
/** How a run was started: the nightly job or a manual (preliminary) run. */
export type RunKind = 'nightly' | 'manual';

/**
 * A (metric, treatment) result inside one slice of a breakdown: the run's MetricResult less
 * what only the run's own family has (the FDR-corrected p-value, `significant`, the outcome,
 * the always-valid block and the time-to-decision estimate), marked exploratory.
 */
export const SliceMetricResultSchema = Type.Object({
  ...Type.Omit(MetricResultSchema, [
    'p_value_fdr',
    'significant',
    'outcome',
    'sequential',
    'mde',
    'users_needed_per_arm',
    'days_to_decision',
  ]).properties,
  exploratory: Type.Literal(true, {
    description:
      'Slices are exploratory: raw p-values, outside the run’s Benjamini–Hochberg family, never a decision',
  }),
});

/** One value of a breakdown's dimension (or `(other)`), with its own arms, SRM check and tests. */
export const SliceSchema = Type.Object({
  value: Type.String({
    description:
      'The dimension’s value, or (other) for every value past the 20 with the most users',
  }),
  exploratory: Type.Literal(true),
  users: Type.Integer({
    description: 'Users in the slice: every user who had this value in the window, in any arm',
  }),
  arms: Type.Record(Type.String(), ArmStatusSchema, {
    description: 'Per arm: the slice’s exposed users and their exposures',
  }),
  srm: SrmSchema,
  results: Type.Record(Type.String(), SliceMetricResultSchema, {
    description: 'Keyed <metric>::<treatment>; empty when the slice’s own SRM check halted',
  }),
});

/** Every slice of one dimension as a run stored it, in descending order of users ((other) last). */
export const BreakdownSchema = Type.Object(
  {
    dimension: Type.String(),
    exploratory: Type.Literal(true),
    slices: Type.Array(SliceSchema),
  },
  {
    description:
      'Present when ?dimension= was asked: the run’s results per value of that dimension. Exploratory: the run’s own results and decision do not depend on it',
  },
);

export type SliceMetricResult = Static<typeof SliceMetricResultSchema>;
export type Slice = Static<typeof SliceSchema>;
/** A run's breakdowns as stored: each computed dimension's slices. */
export type StoredSlices = Record<string, Slice[]>;
