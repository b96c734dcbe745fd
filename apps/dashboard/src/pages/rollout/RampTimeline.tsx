import { utcMinute } from '../lifecycle/lifecycle.ts';
import { coverageText, holdText, type Ramp, stepState, untilText } from './ramp.ts';

const STATE_LABEL = { done: 'done', current: 'current step', upcoming: 'to come' };

/**
 * The steps in order, each with its coverage and hold; the current one says since when it
 * holds and when the next is due (or why none is). Each step's label is text, so nothing is
 * in the colours alone.
 */
export function RampTimeline({ ramp }: { ramp: Ramp }) {
  return (
    <ol className="ramp-steps" aria-label="Ramp steps">
      {ramp.steps.map((s, i) => {
        const state = stepState(ramp, i);
        return (
          <li
            // Each step's coverage is above the one before: unique.
            key={s.coverage}
            className={`ramp-step ${state}`}
            aria-current={state === 'current' ? 'step' : undefined}
            data-testid={`ramp-step-${i + 1}`}
          >
            <strong>
              Step {i + 1}: {coverageText(s.coverage)}
            </strong>
            <span>hold {holdText(s.hold)}</span>
            <span className="step-state">{STATE_LABEL[state]}</span>
            {state === 'current' ? (
              <CurrentStep ramp={ramp} last={i === ramp.steps.length - 1} />
            ) : null}
          </li>
        );
      })}
    </ol>
  );
}

function CurrentStep({ ramp, last }: { ramp: Ramp; last: boolean }) {
  const next =
    ramp.state === 'ended'
      ? 'the ramp has ended'
      : ramp.state === 'paused'
        ? 'paused: no step is due'
        : last
          ? 'the last step holds for good'
          : ramp.next_step_at === null
            ? 'no next step is scheduled'
            : `next step ${utcMinute(ramp.next_step_at)} (${untilText(ramp.next_step_at, Date.now())})`;
  return (
    <>
      <span>since {utcMinute(ramp.step_started_at)}</span>
      <span data-testid="ramp-next">{next}</span>
    </>
  );
}
