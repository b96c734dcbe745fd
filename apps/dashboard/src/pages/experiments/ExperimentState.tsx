import type { SummaryEntry } from '../../api/client.ts';
import type { Status } from '../lifecycle/lifecycle.ts';
import { collectingProgress } from './collecting.ts';
import { useLive } from './queries.ts';
import { listVerdict } from './verdict.ts';

/**
 * The last run's verdict ("Ship concise", "Keep collecting, about 6 days"), its broken
 * guardrails in red beside it; before any run, a running experiment's collecting progress, a
 * draft's "not started" and a stopped one's "no results".
 */
export function ExperimentState({
  id,
  status,
  latest,
}: {
  id: string;
  status: Status;
  latest: SummaryEntry | undefined;
}) {
  if (latest) {
    const verdict = listVerdict(latest);
    const broken = latest.guardrail_violation_count;
    return (
      <>
        <span className={`badge ${verdict.tone}`} data-testid="verdict">
          {verdict.text}
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
  if (status === 'draft') return <span className="hint">not started</span>;
  if (status !== 'running') return <span className="hint">no results</span>;
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
