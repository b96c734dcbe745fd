import { useState } from 'react';
import { useWhoami } from '../../auth/whoami.ts';
import { Form } from '../../components/Form.tsx';
import { ProblemView } from '../../components/states.tsx';
import { type RampMove, useRampMove } from './queries.ts';
import { coverageText, type Ramp } from './ramp.ts';

type Move = (m: RampMove, options?: { onSuccess?: () => void }) => void;

/**
 * Pause (with an optional reason), resume and jump, for admins and owners while the ramp has
 * not ended. Members see none (the server refuses them with 403), nor does anyone before
 * whoami has answered. A refusal is shown and changes nothing.
 */
export function RampControls({ id, ramp }: { id: string; ramp: Ramp }) {
  const me = useWhoami();
  const move = useRampMove(id);
  if (me.data === undefined || me.data.role === 'member' || ramp.state === 'ended') return null;
  return (
    <div className="card ramp-controls">
      {ramp.state === 'running' ? (
        <PauseForm move={move.mutate} pending={move.isPending} />
      ) : (
        <button
          type="button"
          onClick={() => move.mutate({ kind: 'resume' })}
          disabled={move.isPending}
        >
          Resume ramp (the step's hold starts again in full)
        </button>
      )}
      <JumpForm ramp={ramp} move={move.mutate} pending={move.isPending} />
      {move.error ? <ProblemView error={move.error} /> : null}
    </div>
  );
}

/** The reason is sent only when written. */
function PauseForm({ move, pending }: { move: Move; pending: boolean }) {
  const [reason, setReason] = useState('');
  return (
    <Form
      className="row"
      label="Pause the ramp"
      onSubmit={() => {
        move({ kind: 'pause', reason: reason.trim() || undefined });
        setReason('');
      }}
    >
      <label>
        Reason (optional)
        <input value={reason} maxLength={500} onChange={(e) => setReason(e.target.value)} />
      </label>
      <button type="submit" className="danger" disabled={pending}>
        Pause ramp
      </button>
    </Form>
  );
}

/** Any step but the current one; going back says it takes users out. */
function JumpForm({ ramp, move, pending }: { ramp: Ramp; move: Move; pending: boolean }) {
  const [target, setTarget] = useState('');
  return (
    <Form
      className="row"
      label="Jump to a step"
      onSubmit={() => {
        move({ kind: 'jump', step: Number(target) }, { onSuccess: () => setTarget('') });
      }}
    >
      <label>
        Jump to step
        <select value={target} onChange={(e) => setTarget(e.target.value)}>
          <option value="">choose a step</option>
          {ramp.steps.map((s, i) => (
            <option key={s.coverage} value={i + 1} disabled={i + 1 === ramp.step}>
              {i + 1}: {coverageText(s.coverage)}
              {i + 1 < ramp.step ? ' (back: takes users out)' : ''}
            </option>
          ))}
        </select>
      </label>
      <button type="submit" disabled={target === '' || pending}>
        Jump
      </button>
    </Form>
  );
}
