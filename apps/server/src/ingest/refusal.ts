import type { AcceptOutcome } from './accept.ts';
import { IngestError } from './outcomes.ts';

/** Nothing acceptable in the request: a problem that says why, instead of an empty ack. */
export function refuseIfNothingAccepted(
  outcome: AcceptOutcome,
  pointerOf: (index: number) => string,
): void {
  if (outcome.accepted > 0) return;
  refuseIfAllOverAllowance(outcome);
  const errors = outcome.rejected.map((r) => ({ pointer: pointerOf(r.index), detail: r.detail }));
  throw new IngestError(
    'nothing-accepted',
    `No event in the request is valid; first: ${errors[0]?.pointer ?? ''} ${errors[0]?.detail ?? ''}`.trim(),
    { errors },
  );
}

/** Nothing accepted and some refused only for the allowance: 429 until the month resets. */
export function refuseIfAllOverAllowance(outcome: AcceptOutcome): void {
  if (outcome.accepted > 0 || outcome.overAllowance === 0) return;
  const seconds = Math.max(
    1,
    Math.ceil((outcome.resetsAt.getTime() - outcome.now.getTime()) / 1000),
  );
  throw new IngestError(
    'allowance-exceeded',
    `The monthly allowance of ${outcome.allowance} events is used up; it resets at ${outcome.resetsAt.toISOString()}`,
    { allowance: outcome.allowance, resets_at: outcome.resetsAt.toISOString() },
    seconds,
  );
}
