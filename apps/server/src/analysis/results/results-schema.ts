import { type Static, Type } from 'typebox';
import {
  ArmStatusSchema,
  BreakdownSchema,
  DecisionSchema,
  GuardrailViolationSchema,
  MetricResultSchema,
  SrmSchema,
} from '../../schemas/analysis-run.ts';

/**
 * The Results a run serves: the OpenAPI document's schema, built from the stored shapes of
 * `schemas/analysis-run.ts` (their one definition) plus what presenting a run adds.
 */
export const RUN_STATUSES = ['collecting', 'srm_halted', 'computed'] as const;
export const RunStatusSchema = Type.Enum(RUN_STATUSES);

/** Present for an experiment with targeting; the counts the clients report, summed. */
export const TargetingShareSchema = Type.Object(
  {
    matched: Type.Integer({ description: 'Users who reached the targeting and matched it' }),
    excluded: Type.Integer({
      description: 'Users who reached the targeting, did not match it and got null',
    }),
    excluded_share: Type.Union([Type.Number(), Type.Null()], {
      description: 'excluded / (matched + excluded); null when none was reported',
    }),
    days: Type.Integer({ description: 'UTC days of the window with a reported tally' }),
  },
  {
    description:
      'Users who reached the experiment’s targeting (past its holdouts and layer) over the run’s window, as the client libraries and POST /v1/assign report them: distinct per process and UTC day, so a user served by several processes or on several days counts in each',
  },
);

export const ResultsSchema = Type.Object({
  experiment_id: Type.String(),
  status: Type.Optional(RunStatusSchema),
  computed_for: Type.String({
    description: 'The run served: a day (YYYY-MM-DD) or manual-<ISO instant>',
  }),
  computed_at: Type.String({ format: 'date-time' }),
  preliminary: Type.Boolean(),
  final: Type.Boolean({
    description:
      'The last nightly run of a stopped experiment: the day it stopped, its window ending at the stop; no nightly run follows',
  }),
  available_days: Type.Array(Type.String()),
  window: Type.Object({
    start: Type.String({ format: 'date-time' }),
    end: Type.String({ format: 'date-time' }),
  }),
  srm: SrmSchema,
  arms: Type.Record(Type.String(), ArmStatusSchema),
  results: Type.Record(Type.String(), MetricResultSchema, {
    description: 'Keyed <metric>::<treatment>; empty when the SRM gate halted',
  }),
  decision: DecisionSchema,
  guardrail_violations: Type.Array(GuardrailViolationSchema, {
    description:
      'Guardrail metrics whose outcome is worse, by metric then treatment; each is audited once as guardrail.violated',
  }),
  breakdown: Type.Optional(BreakdownSchema),
  targeting: Type.Optional(TargetingShareSchema),
});

export type Results = Static<typeof ResultsSchema>;

/** One entry of GET /v1/results/summary: the experiment's default view and its violations. */
export const SummaryEntrySchema = Type.Object({
  ...ResultsSchema.properties,
  guardrail_violation_count: Type.Integer({
    description: 'Guardrail violations of the run served (the length of guardrail_violations)',
  }),
});
