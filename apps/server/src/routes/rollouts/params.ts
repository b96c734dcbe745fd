import { Type } from 'typebox';
import { IdOrNameParams } from '../../http/org-routes.ts';
import { RolloutStepSchema } from '../../schemas/rollout.ts';

export const TAGS = ['rollouts'];

/** An experiment addressed by id or name, as on the experiment routes. */
export const RampParams = IdOrNameParams;

const Nullable = <T extends ReturnType<typeof Type.String | typeof Type.Number>>(t: T) =>
  Type.Union([t, Type.Null()]);

const GuardrailReadingSchema = Type.Object({
  metric: Type.String(),
  treatment: Type.String(),
  direction: Type.Enum(['increase', 'decrease'], { description: 'Which way is better' }),
  effect: Nullable(Type.Number({ description: 'Treatment minus control' })),
  ci_low: Nullable(Type.Number({ description: 'Always-valid interval, low end' })),
  ci_high: Nullable(Type.Number({ description: 'Always-valid interval, high end' })),
  p_value: Nullable(Type.Number({ description: 'Always-valid p-value' })),
  n_control: Type.Integer({ minimum: 0, description: 'Users of the control arm with a value' }),
  n_treatment: Type.Integer({ minimum: 0, description: 'Users of the treatment arm with a value' }),
  worse: Type.Boolean({ description: 'The interval excludes zero on the worse side' }),
});

/** One evaluation of the ramp's guard, as the routes answer it. */
export const EvaluationSchema = Type.Object({
  id: Type.String({ format: 'uuid' }),
  evaluated_at: Type.String({ format: 'date-time' }),
  step: Type.Integer({ minimum: 1, description: 'The step the ramp was at, 1-based' }),
  coverage: Type.Number({ description: 'The coverage the experiment had' }),
  srm_p: Nullable(
    Type.Number({ description: 'The SRM check’s p-value; null before every arm has users' }),
  ),
  srm_failed: Type.Boolean({
    description: 'The SRM check failed (p below 0.001): the guard paused',
  }),
  guardrails: Type.Array(GuardrailReadingSchema, {
    description: 'Each guardrail metric against control, per treatment',
  }),
  action: Type.Enum(['none', 'paused', 'rolled_back'], { description: 'What the guard did' }),
  reason: Nullable(Type.String({ description: 'What the guard saw, when it acted' })),
});

const GuardSchema = Type.Object(
  {
    state: Type.Enum(['ok', 'paused', 'rolled_back'], {
      description:
        'ok: no violation seen (or a user paused the ramp); paused: the guard paused it; rolled_back: the guard stopped the experiment with conclusion rollback',
    }),
    alpha: Type.Number({
      description:
        'The family-wise error rate of the whole guard: every guardrail pair is tested at alpha divided by the number of pairs',
    }),
    guardrails: Type.Array(Type.String(), {
      description: 'The guardrail metrics it tests (primary metrics never are)',
    }),
    last_evaluation: Type.Union([EvaluationSchema, Type.Null()]),
    last_action: Type.Union([EvaluationSchema, Type.Null()], {
      description: 'The latest evaluation that paused or rolled back; null when it never acted',
    }),
    next_evaluation_at: Nullable(
      Type.String({
        format: 'date-time',
        description: 'When the next evaluation is due; null while paused or ended',
      }),
    ),
    evaluations_url: Type.String({
      description: 'Every evaluation, newest first, a page at a time',
    }),
  },
  { description: 'The guard: every `guardrails_every`, the guardrails and the SRM check' },
);

/** A ramp as the routes answer it (docs/rollouts.md). */
export const RampSchema = Type.Object({
  experiment_id: Type.String({ format: 'uuid' }),
  state: Type.Enum(['running', 'paused', 'ended'], {
    description:
      'running: advances on schedule; paused: holds its coverage; ended: the experiment stopped',
  }),
  step: Type.Integer({ minimum: 1, description: 'The current step, 1-based' }),
  steps: Type.Array(RolloutStepSchema),
  on_violation: Type.Enum(['pause', 'rollback']),
  guardrails_every: Type.String(),
  coverage: Type.Number({ description: 'The coverage the experiment has now' }),
  step_started_at: Type.String({ format: 'date-time' }),
  next_step_at: Nullable(
    Type.String({
      format: 'date-time',
      description: 'When the next step is due; null at the last step or while paused',
    }),
  ),
  next_guard_at: Nullable(Type.String({ format: 'date-time' })),
  paused_by: Type.Union([Type.Literal('guard'), Type.Literal('user'), Type.Null()]),
  paused_reason: Nullable(Type.String()),
  guard: GuardSchema,
  evaluations: Type.Array(EvaluationSchema, {
    description: 'The guard’s latest evaluations, newest first (at most 50)',
  }),
});
