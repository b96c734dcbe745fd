import type { Results } from '../../api/client.ts';
import { collectingProgress } from './collecting.ts';
import { useLive } from './queries.ts';

/** Collecting (with progress), results, or SRM halted: the one-word state of an experiment. */
export function ExperimentState({ id, latest }: { id: string; latest: Results | undefined }) {
  if (latest?.srm.halted) return <span className="badge bad">SRM halted</span>;
  if (latest) {
    const significant = Object.values(latest.results).filter((r) => r.significant).length;
    return (
      <span className="badge good">
        Results · {significant} significant of {Object.keys(latest.results).length}
      </span>
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
