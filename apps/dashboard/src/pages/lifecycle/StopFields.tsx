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
        <ShipField
          experiment={experiment}
          recommended={recommended}
          variant={choice.variant}
          onChange={onChange}
        />
      ) : null}
      {prompt === null ? null : (
        <ReleaseField prompt={prompt} checked={choice.releasePrompt} onChange={onChange} />
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

/** The variant to ship, the last run's recommendation and the control named. */
function ShipField({
  experiment,
  recommended,
  variant,
  onChange,
}: {
  experiment: Experiment;
  recommended: string;
  variant: string;
  onChange: (c: Partial<StopFieldsChoice>) => void;
}) {
  const control = controlOf(experiment);
  const note = (arm: string) =>
    arm === recommended ? ' (recommended by the last run)' : arm === control ? ' (control)' : '';
  return (
    <label>
      Variant to ship{' '}
      <select value={variant} onChange={(e) => onChange({ variant: e.target.value })}>
        <option value="">Choose a variant</option>
        {armOrder(experiment).map((arm) => (
          <option key={arm} value={arm}>
            {arm}
            {note(arm)}
          </option>
        ))}
      </select>
    </label>
  );
}

/** Whether a shipped prompt version becomes `production` (ticked by default, as the API). */
function ReleaseField({
  prompt,
  checked,
  onChange,
}: {
  prompt: { name: string; version: number };
  checked: boolean;
  onChange: (c: Partial<StopFieldsChoice>) => void;
}) {
  return (
    <label>
      <input
        type="checkbox"
        checked={checked}
        onChange={(e) => onChange({ releasePrompt: e.target.checked })}
      />{' '}
      Release {prompt.name} version {prompt.version} to production
    </label>
  );
}
