import { type Static, Type } from 'typebox';

/**
 * An ISO 8601 duration of days, hours, minutes and seconds (`P1D`, `PT1H`, `PT30M`, `P1DT12H`);
 * weeks as `P1W`. Years and months are refused: their length depends on the calendar.
 */
export const ISO_DURATION_PATTERN =
  '^P(?:\\d+W|(?=\\d|T\\d)(?:\\d+D)?(?:T(?=\\d)(?:\\d+H)?(?:\\d+M)?(?:\\d+S)?)?)$';

const Duration = (description: string) =>
  Type.String({ pattern: ISO_DURATION_PATTERN, maxLength: 32, description });

export const RolloutStepSchema = Type.Object(
  {
    coverage: Type.Number({
      exclusiveMinimum: 0,
      maximum: 1,
      description: 'The coverage this step sets: the share of eligible users who enter',
    }),
    hold: Duration(
      'How long the step holds before the next (ISO 8601: PT30M, PT1H, P1D; at least a minute)',
    ),
  },
  { additionalProperties: false },
);

export const RolloutSchema = Type.Object(
  {
    steps: Type.Array(RolloutStepSchema, {
      minItems: 1,
      maxItems: 20,
      description: 'The ramp, in order: each step’s coverage above the one before',
    }),
    on_violation: Type.Enum(['pause', 'rollback'], {
      description:
        'What the guard does when a guardrail is worse at the always-valid level: pause holds the coverage and alerts; rollback stops the experiment with conclusion rollback. An SRM failure always pauses',
    }),
    guardrails_every: Type.Optional(
      Duration('How often the guard tests the guardrails (ISO 8601; default PT5M, at least PT1M)'),
    ),
  },
  {
    additionalProperties: false,
    description:
      'A ramp that widens the coverage on schedule and a guard that stops it on a broken guardrail (docs/rollouts.md). Starting the experiment sets the first step',
  },
);

export type RolloutConfig = Static<typeof RolloutSchema>;

/** One guardrail's reading in a guard evaluation: its always-valid interval and p. */
export interface GuardrailReading {
  metric: string;
  treatment: string;
  /** Which way is better for the metric. */
  direction: 'increase' | 'decrease';
  /** Treatment minus control. */
  effect: number | null;
  ci_low: number | null;
  ci_high: number | null;
  p_value: number | null;
  /** Users with a value in each arm. */
  n_control: number;
  n_treatment: number;
  /** Whether the interval excludes zero on the worse side. */
  worse: boolean;
}
