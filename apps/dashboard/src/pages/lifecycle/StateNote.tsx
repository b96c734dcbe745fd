import type { Experiment } from '../../api/client.ts';
import { servingSentence } from './lifecycle.ts';

/**
 * What users get from an experiment that is not running, under its page's head: a stopped
 * one's served variant, since when, by whom and why; a draft's and an archived one's null. A
 * running experiment needs no note: its arms are in the head.
 */
export function StateNote({ experiment: e }: { experiment: Experiment }) {
  if (e.status === 'running') return null;
  if (e.status === 'draft')
    return (
      <p className="note state-note" data-testid="state-note">
        Draft: assign returns null (your code’s default) and sends no exposure until it is started.
      </p>
    );
  return (
    <section className="note state-note" aria-label="What users get" data-testid="state-note">
      {e.status === 'archived' ? (
        <p>
          Archived: the experiment is not in the config, so assign returns null (your code’s
          default) and sends no exposure. {e.stop === null ? '' : 'Before it was archived:'}
        </p>
      ) : null}
      {e.stop === null ? null : (
        <>
          <p data-testid="serving">{servingSentence(e.stop)}</p>
          <p data-testid="stop-reason">
            {e.stop.reason === null ? 'No reason was given.' : `Why: ${e.stop.reason}`}
          </p>
          {e.status === 'stopped' ? (
            <p>
              No exposure of this experiment is sent; targeting, layers and holdouts still decide
              who is eligible.
            </p>
          ) : null}
        </>
      )}
    </section>
  );
}
