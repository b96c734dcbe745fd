import { useId } from 'react';
import type { Experiment } from '../../api/client.ts';
import { armOrder } from '../../charts/arm-colour.ts';
import { CONCLUSION_LABEL, type Conclusion, controlOf } from './lifecycle.ts';

export interface StopFieldsChoice {
  conclusion: Conclusion | '';
  variant: string;
  reason: string;
  releasePrompt: boolean;
}

const CONCLUSIONS = Object.keys(CONCLUSION_LABEL) as Conclusion[];

/**
 * The stop form's fields: the conclusion, the variant to ship (control allowed), whether a
 * shipped prompt version becomes production, a reason.
 */
export function StopFields({
  experiment,
  recommended,
  choice,
  prompt,
  onChange,
}: {
  experiment: Experiment;
  recommended: string;
  choice: StopFieldsChoice;
  prompt: { name: string; version: number } | null;
  onChange: (c: Partial<StopFieldsChoice>) => void;
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
      {prompt === null ? null : (
        <label>
          <input
            type="checkbox"
            checked={choice.releasePrompt}
            onChange={(e) => onChange({ releasePrompt: e.target.checked })}
          />{' '}
          Release {prompt.name} version {prompt.version} to production
        </label>
      )}
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
