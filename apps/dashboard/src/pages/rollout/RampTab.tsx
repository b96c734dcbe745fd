import type { Experiment } from '../../api/client.ts';
import { QueryView } from '../../components/states.tsx';
import { GuardEvaluations } from './GuardEvaluations.tsx';
import { useRamp } from './queries.ts';
import { RampControls } from './RampControls.tsx';
import { RampTimeline } from './RampTimeline.tsx';
import { coverageText, holdText, pausedSentence, type Ramp } from './ramp.ts';

/**
 * The experiment's ramp (the tab exists only for an experiment with a `rollout`). A draft has
 * no ramp yet (the route answers 404 until the start), so it is not asked for.
 */
export function RampTab({ experiment: e }: { experiment: Experiment }) {
  if (e.status === 'draft')
    return (
      <p className="note" data-testid="ramp-not-started">
        The ramp starts when the experiment starts: step 1 sets the coverage to{' '}
        {coverageText(e.rollout?.steps[0]?.coverage ?? 1)} of eligible users.
      </p>
    );
  return <RampView id={e.id} />;
}

function RampView({ id }: { id: string }) {
  const ramp = useRamp(id);
  return (
    <QueryView query={ramp} what="the ramp">
      {(r) => (
        <div className="ramp">
          <RampBanner ramp={r} />
          <p data-testid="ramp-summary">
            Step {r.step} of {r.steps.length} · coverage {coverageText(r.coverage)} ·{' '}
            {r.state === 'running' ? 'running' : r.state} · on a broken guardrail:{' '}
            {r.on_violation === 'rollback' ? 'roll back' : 'pause'} · guard every{' '}
            {holdText(r.guardrails_every)}
          </p>
          <RampTimeline ramp={r} />
          <RampControls id={id} ramp={r} />
          <GuardEvaluations ramp={r} />
        </div>
      )}
    </QueryView>
  );
}

/**
 * Red while the ramp is paused, saying who paused it and why; the guard's own rollback reads
 * from its latest evaluation. An ended ramp (the experiment stopped) is a plain note.
 */
function RampBanner({ ramp }: { ramp: Ramp }) {
  const paused = pausedSentence(ramp);
  const rolledBack = ramp.evaluations.find((ev) => ev.action === 'rolled_back');
  if (paused !== null)
    return (
      <div className="guardrail-banner" role="alert" data-testid="ramp-paused">
        <strong>Ramp paused.</strong> {paused} The coverage stays where it is and no step advances
        until it is resumed.
      </div>
    );
  if (ramp.state === 'ended' && rolledBack !== undefined)
    return (
      <div className="guardrail-banner" role="alert" data-testid="ramp-rolled-back">
        <strong>The guard rolled the experiment back</strong> at step {rolledBack.step}
        {rolledBack.reason ? `: ${rolledBack.reason}` : ''}. Every eligible user gets control.
      </div>
    );
  if (ramp.state === 'ended')
    return (
      <p className="note" data-testid="ramp-ended">
        The ramp has ended: the experiment stopped.
      </p>
    );
  return null;
}
