import { Type } from 'typebox';
import { RolloutStepSchema } from '../../schemas/rollout.ts';
import { Text } from '../../schemas/text.ts';

export const TAGS = ['rollouts'];

/** An experiment addressed by id or name, as on the experiment routes. */
export const RampParams = Type.Object({ id: Text({ maxLength: 200 }) });

const Nullable = <T extends ReturnType<typeof Type.String | typeof Type.Number>>(t: T) =>
  Type.Union([t, Type.Null()]);

const GuardrailReadingSchema = Type.Object({
  metric: Type.String(),
  treatment: Type.String(),
  effect: Nullable(Type.Number()),
  ci_low: Nullable(Type.Number({ description: 'Always-valid interval, low end' })),
  ci_high: Nullable(Type.Number({ description: 'Always-valid interval, high end' })),
  p_value: Nullable(Type.Number({ description: 'Always-valid p-value' })),
  worse: Type.Boolean({ description: 'The interval excludes zero on the worse side' }),
});

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
  evaluations: Type.Array(
    Type.Object({
      evaluated_at: Type.String({ format: 'date-time' }),
      step: Type.Integer(),
      coverage: Type.Number(),
      srm_p: Nullable(Type.Number()),
      guardrails: Type.Array(GuardrailReadingSchema),
      action: Type.Enum(['none', 'paused', 'rolled_back']),
      reason: Nullable(Type.String()),
    }),
    { description: 'The guard’s latest evaluations, newest first (at most 50)' },
  ),
});
