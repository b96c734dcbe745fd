import { useCollectingEstimates } from '../experiments/queries.ts';
import { moreDays } from './format.ts';

/**
 * How long until the primary metrics can decide, per treatment: the users per arm a decision
 * needs for the metric's MDE and the days to get there at the last 7 days' arrivals. Nothing
 * while it loads or when no primary metric has an estimate: the panel's counts stand alone.
 */
export function TimeToDecision({ id }: { id: string }) {
  const estimates = useCollectingEstimates(id);
  const shown = (estimates.data ?? []).filter((e) => e.users_needed_per_arm !== null);
  if (shown.length === 0) return null;
  return (
    <ul className="time-to-decision" aria-label="Time to a decision">
      {shown.map((e) => (
        <li key={`${e.metric}-${e.treatment}`} data-testid={`estimate-${e.metric}-${e.treatment}`}>
          {e.metric} on {e.treatment}:{' '}
          {e.days_to_decision === null
            ? 'no user arrived in the last 7 days'
            : `${moreDays(e.days_to_decision)} at the last 7 days’ rate`}{' '}
          ({e.users_needed_per_arm} users per arm to detect a {Number((e.mde * 100).toPrecision(3))}
          % change)
        </li>
      ))}
    </ul>
  );
}
