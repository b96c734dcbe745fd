import type { SummaryEntry } from '../../api/client.ts';
import { collectingProgress } from './collecting.ts';
import { useLive } from './queries.ts';

/**
 * Collecting (with progress), results, or SRM halted: the one-word state of an experiment, and
 * its broken guardrails in red beside it.
 */
export function ExperimentState({ id, latest }: { id: string; latest: SummaryEntry | undefined }) {
  if (latest?.srm.halted) return <span className="badge bad">SRM halted</span>;
  if (latest) {
    const significant = Object.values(latest.results).filter((r) => r.significant).length;
    const broken = latest.guardrail_violation_count;
    return (
      <>
        <span className="badge good">
          Results · {significant} significant of {Object.keys(latest.results).length}
        </span>
        {broken > 0 ? (
          <>
            {' '}
            <span className="badge worse">
              {broken} guardrail{broken === 1 ? '' : 's'} broken
            </span>
          </>
        ) : null}
      </>
    );
  }
  return <CollectingState id={id} />;
}

function CollectingState({ id }: { id: string }) {
  const live = useLive(id);
  if (!live.data) return <span className="badge">Collecting</span>;
  const p = collectingProgress(live.data);
  return (
    <span className="badge">
      Collecting{' '}
      <progress
        value={p.least}
        max={p.target}
        aria-label={`${p.least} of ${p.target} events in the smallest arm`}
      />{' '}
      {p.least}/{p.target} per arm
    </span>
  );
}
