import { useId } from 'react';
import { QueryView } from '../../components/states.tsx';
import { useExperiments } from '../experiments/queries.ts';

/** What a holdout covers: "all" (every experiment created after it) or the experiments picked, by id. */
export type HoldoutScope = 'all' | string[];

/** "All experiments created from now on", or a multi-select of the org's experiments by name. */
export function ExperimentsChoice({
  value,
  onChange,
  errors,
}: {
  value: HoldoutScope;
  onChange: (v: HoldoutScope) => void;
  errors: string[];
}) {
  const experiments = useExperiments();
  const name = useId();
  return (
    <fieldset className="experiments-choice">
      <legend>Experiments</legend>
      <label className="choice">
        <input
          type="radio"
          name={name}
          checked={value === 'all'}
          onChange={() => onChange('all')}
        />{' '}
        All experiments created after the holdout
      </label>
      <label className="choice">
        <input type="radio" name={name} checked={value !== 'all'} onChange={() => onChange([])} />{' '}
        Only these
      </label>
      {value === 'all' ? null : (
        <QueryView query={experiments} what="experiments">
          {(list) => (
            <label>
              Experiments held out
              <select
                multiple
                size={Math.min(8, Math.max(3, list.length))}
                value={value}
                onChange={(e) => onChange(Array.from(e.target.selectedOptions, (o) => o.value))}
              >
                {list.map((x) => (
                  <option key={x.id} value={x.id}>
                    {x.name}
                  </option>
                ))}
              </select>
            </label>
          )}
        </QueryView>
      )}
      <FieldErrors errors={errors} />
    </fieldset>
  );
}

/** The server's words about one field, beside it. */
export function FieldErrors({ errors, id }: { errors: string[]; id?: string }) {
  if (errors.length === 0) return null;
  return (
    <div className="field-errors" id={id} role="alert">
      <ul>
        {errors.map((e) => (
          <li key={e}>{e}</li>
        ))}
      </ul>
    </div>
  );
}
