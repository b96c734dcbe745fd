import { useId, useState } from 'react';
import type { Holdout, HoldoutChange } from '../../api/client.ts';
import { Form } from '../../components/Form.tsx';
import { ProblemView } from '../../components/states.tsx';
import { ExperimentsChoice, FieldErrors, type HoldoutScope } from './ExperimentsChoice.tsx';
import { fieldErrors } from './field-errors.ts';
import { PercentField } from './PercentField.tsx';
import { useUpdateHoldout } from './queries.ts';

const sameScope = (a: HoldoutScope, b: HoldoutScope) =>
  a === 'all' || b === 'all' ? a === b : a.length === b.length && a.every((x) => b.includes(x));

/**
 * Percent and experiments, the fields a holdout may change. The percent may only grow: the form
 * does not stop a smaller one, the server refuses it and its reason stands beside the field.
 */
export function HoldoutEditForm({ holdout }: { holdout: Holdout }) {
  const [percent, setPercent] = useState(holdout.percent);
  const [experiments, setExperiments] = useState<HoldoutScope>(holdout.experiments);
  const update = useUpdateHoldout(holdout.id);
  const percentErrors = fieldErrors(update.error, '#/percent');
  const experimentErrors = fieldErrors(update.error, '#/experiments');
  const percentHelp = useId();
  const change: HoldoutChange = {
    ...(percent === holdout.percent ? {} : { percent }),
    ...(sameScope(experiments, holdout.experiments) ? {} : { experiments }),
  };
  return (
    <Form
      className="card editor"
      label="Change holdout"
      onSubmit={() => {
        update.mutate(change);
      }}
    >
      <h2>Change</h2>
      <PercentField
        value={percent}
        onChange={setPercent}
        invalid={percentErrors.length > 0}
        describedBy={percentErrors.length > 0 ? percentHelp : undefined}
      />
      <FieldErrors errors={percentErrors} id={percentHelp} />
      <ExperimentsChoice value={experiments} onChange={setExperiments} errors={experimentErrors} />
      <div className="actions">
        <button type="submit" disabled={update.isPending || Object.keys(change).length === 0}>
          Save new version
        </button>
      </div>
      {update.error && percentErrors.length + experimentErrors.length === 0 ? (
        <ProblemView error={update.error} />
      ) : null}
    </Form>
  );
}
