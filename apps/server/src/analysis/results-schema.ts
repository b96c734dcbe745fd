import { Type } from 'typebox';

const Nullable = <T extends ReturnType<typeof Type.Number>>(t: T) => Type.Union([t, Type.Null()]);

export const DistributionSchema = Type.Object({
  bin_edges: Type.Array(Type.Number()),
  counts: Type.Record(Type.String(), Type.Array(Type.Integer())),
});

/** SPEC §2 MetricResult (every required field) plus DESIGN §8's additions. */
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
  reason: Type.Union([Type.String(), Type.Null()]),
  statistic: Type.Number(),
  p_value: Type.Number({ description: 'Raw p-value; never used for the decision' }),
  p_value_fdr: Type.Number({
    description: 'Benjamini–Hochberg corrected across all pairs of the run',
  }),
  significant: Type.Boolean({ description: 'p_value_fdr < 0.05' }),
  effect: Type.Number({ description: 'treatment − control' }),
  ci_low: Type.Number(),
  ci_high: Type.Number(),
  lift: Nullable(Type.Number()),
  n_per_arm: Type.Record(Type.String(), Type.Integer()),
  mean_per_arm: Type.Record(Type.String(), Nullable(Type.Number())),
  srm_p: Type.Number(),
  permutations_used: Type.Integer(),
  sample_cap_used: Type.Boolean(),
  window_days: Type.Integer(),
  retention_truncated: Type.Boolean(),
  preliminary: Type.Boolean(),
  distribution: DistributionSchema,
});

export const ResultsSchema = Type.Object({
  experiment_id: Type.String(),
  status: Type.Optional(Type.Enum(['collecting', 'srm_halted', 'computed'])),
  computed_for: Type.String({
    description: 'The run served: a day (YYYY-MM-DD) or manual-<ISO instant>',
  }),
  computed_at: Type.String({ format: 'date-time' }),
  preliminary: Type.Boolean(),
  available_days: Type.Array(Type.String()),
  window: Type.Object({
    start: Type.String({ format: 'date-time' }),
    end: Type.String({ format: 'date-time' }),
  }),
  srm: Type.Object({
    p_value: Nullable(Type.Number()),
    halted: Type.Boolean(),
    observed: Type.Optional(Type.Record(Type.String(), Type.Integer())),
    expected_shares: Type.Optional(Type.Record(Type.String(), Type.Number())),
  }),
  arms: Type.Record(Type.String(), Type.Object({ users: Type.Integer(), events: Type.Integer() })),
  results: Type.Record(Type.String(), MetricResultSchema, {
    description: 'Keyed <metric>::<treatment>; empty when the SRM gate halted',
  }),
});
