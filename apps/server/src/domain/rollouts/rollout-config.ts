import type { RolloutConfig } from '../../schemas/rollout.ts';
import { durationMs } from './duration.ts';

/** The guard's default and shortest interval, and a step's shortest hold. */
export const DEFAULT_GUARD_EVERY = 'PT5M';
export const MIN_GUARD_EVERY_MS = 60_000;
export const MIN_HOLD_MS = 60_000;

export const guardEveryMs = (rollout: RolloutConfig) =>
  durationMs(rollout.guardrails_every ?? DEFAULT_GUARD_EVERY);

/** The hold of step `step` (0-based) in milliseconds. */
export const holdMs = (rollout: RolloutConfig, step: number) =>
  durationMs(rollout.steps[step]?.hold ?? 'PT0S');

/**
 * What a rollout breaks beyond its schema: each step widens the one before (a ramp only adds
 * users while it advances), holds at least a minute, and the guard runs at most once a minute.
 */
export function rolloutErrors(
  rollout: RolloutConfig | undefined,
): Array<{ pointer: string; detail: string }> {
  if (rollout === undefined) return [];
  const errors: Array<{ pointer: string; detail: string }> = [];
  rollout.steps.forEach((step, i) => {
    const before = rollout.steps[i - 1];
    if (before !== undefined && step.coverage <= before.coverage)
      errors.push({
        pointer: `#/rollout/steps/${i}/coverage`,
        detail: `must be above the step before (${before.coverage})`,
      });
    if (durationMs(step.hold) < MIN_HOLD_MS)
      errors.push({ pointer: `#/rollout/steps/${i}/hold`, detail: 'must be at least PT1M' });
  });
  if (guardEveryMs(rollout) < MIN_GUARD_EVERY_MS)
    errors.push({ pointer: '#/rollout/guardrails_every', detail: 'must be at least PT1M' });
  return errors;
}
