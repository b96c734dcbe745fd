import type { Experiment } from '../../api/client.ts';
import { QueryView } from '../../components/states.tsx';
import { collectingProgress } from '../experiments/collecting.ts';
import { useLive } from '../experiments/queries.ts';
import { TimeToDecision } from './TimeToDecision.tsx';

/**
 * Before the first computed run: how far each arm is from the ~200 events results need, and
 * about how many more days the primary metrics need to decide.
 */
export function CollectingPanel({ experiment }: { experiment: Experiment }) {
  const live = useLive(experiment.id);
  return (
    <div className="card collecting" role="status">
      <h2>Collecting</h2>
      <QueryView query={live} what="live counts">
        {(l) => {
          const p = collectingProgress(l);
          const arms = experiment.allocation.map((a) => a.variant);
          return (
            <>
              <p>
                Results appear after the nightly run once every arm has {p.target} evaluated events.
                You can run a preliminary analysis at any time.
              </p>
              <p>
                Smallest arm: {p.least} of {p.target} ({Math.round(p.share * 100)}%)
              </p>
              <ul className="arm-progress">
                {arms.map((a) => {
                  const n = l.arms[a]?.exposures ?? 0;
                  return (
                    <li key={a}>
                      <span>{a}</span>{' '}
                      <progress
                        max={p.target}
                        value={Math.min(n, p.target)}
                        aria-label={`${a}: ${n} of ${p.target} events`}
                      />{' '}
                      {n}
                    </li>
                  );
                })}
              </ul>
              <TimeToDecision id={experiment.id} />
            </>
          );
        }}
      </QueryView>
    </div>
  );
}
