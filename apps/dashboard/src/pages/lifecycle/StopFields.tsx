import { useId } from 'react';
import type { Experiment } from '../../api/client.ts';
import { armOrder } from '../../charts/arm-colour.ts';
import { CONCLUSION_LABEL, type Conclusion, controlOf } from './lifecycle.ts';

interface Choice {
  conclusion: Conclusion | '';
  variant: string;
  reason: string;
}

const CONCLUSIONS = Object.keys(CONCLUSION_LABEL) as Conclusion[];

/** The stop form's fields: the conclusion, the variant to ship (control allowed), a reason. */
export function StopFields({
  experiment,
  recommended,
  choice,
  onChange,
}: {
  experiment: Experiment;
  recommended: string;
  choice: Choice;
  onChange: (c: Partial<{ conclusion: Conclusion; variant: string; reason: string }>) => void;
}) {
  const name = useId();
  const control = controlOf(experiment);
  const note = (arm: string) =>
    arm === recommended ? ' (recommended by the last run)' : arm === control ? ' (control)' : '';
  return (
    <>
      <fieldset className="conclusions">
        <legend>Conclusion</legend>
        {CONCLUSIONS.map((c) => (
          <label key={c}>
            <input
              type="radio"
              name={name}
              value={c}
              checked={choice.conclusion === c}
              onChange={() => onChange({ conclusion: c })}
            />{' '}
            {CONCLUSION_LABEL[c]}
          </label>
        ))}
      </fieldset>
      {choice.conclusion === 'ship' ? (
        <label>
          Variant to ship{' '}
          <select value={choice.variant} onChange={(e) => onChange({ variant: e.target.value })}>
            <option value="">Choose a variant</option>
            {armOrder(experiment).map((arm) => (
              <option key={arm} value={arm}>
                {arm}
                {note(arm)}
              </option>
            ))}
          </select>
        </label>
      ) : null}
      <label>
        Reason (optional){' '}
        <textarea
          value={choice.reason}
          rows={2}
          onChange={(e) => onChange({ reason: e.target.value })}
        />
      </label>
    </>
  );
}
