import { useState } from 'react';
import { useNavigate } from 'react-router';
import type { Holdout, MetricDefinition } from '../../api/client.ts';
import { BucketCountField } from '../../components/BucketCountField.tsx';
import { DataTable } from '../../components/DataTable.tsx';
import { ListPage, NameCell } from '../../components/ListPage.tsx';
import { MutationForm } from '../../components/MutationForm.tsx';
import { MetricsEditor } from '../editor/MetricsEditor.tsx';
import { ExperimentsChoice, type HoldoutScope } from './ExperimentsChoice.tsx';
import { fieldErrors } from './field-errors.ts';
import { PercentField } from './PercentField.tsx';
import { useCreateHoldout, useHoldouts } from './queries.ts';

/** The org's holdouts in the order they were made, and a form to make one. */
export function HoldoutsPage() {
  return (
    <ListPage
      title="Holdouts"
      intro={
        <>
          A holdout keeps a share of users out of every experiment it covers, so the nightly run can
          compare them with everyone else: the total effect of what shipped.
        </>
      }
      form={<NewHoldoutForm />}
      query={useHoldouts()}
    >
      {(list) => <HoldoutsTable holdouts={list} />}
    </ListPage>
  );
}

/** "all", or how many experiments are named. */
export const scopeText = (experiments: Holdout['experiments']): string =>
  experiments === 'all'
    ? 'all experiments created after it'
    : `${experiments.length} experiment${experiments.length === 1 ? '' : 's'}`;

function HoldoutsTable({ holdouts }: { holdouts: Holdout[] }) {
  return (
    <DataTable label="Holdouts" columns={['Name', 'Held out', 'Buckets', 'Experiments', 'Metrics']}>
      {holdouts.map((h) => (
        <tr key={h.id} data-testid={`holdout-${h.name}`}>
          <NameCell to={`/holdouts/${h.id}`} name={h.name} />
          <td data-testid="percent">{h.percent}%</td>
          <td>{h.bucket_count.toLocaleString('en-US')}</td>
          <td>{scopeText(h.experiments)}</td>
          <td>{h.metrics.map((m) => m.name).join(', ')}</td>
        </tr>
      ))}
    </DataTable>
  );
}

function NewHoldoutForm() {
  const [name, setName] = useState('');
  const [bucketCount, setBucketCount] = useState(10000);
  const [percent, setPercent] = useState(5);
  const [experiments, setExperiments] = useState<HoldoutScope>('all');
  const [metrics, setMetrics] = useState<MetricDefinition[]>([]);
  const create = useCreateHoldout();
  const navigate = useNavigate();
  return (
    <MutationForm
      className="card editor"
      label="New holdout"
      mutation={create}
      submit="Create holdout"
      inActions
      after={
        <p className="hint">
          Name, bucket count and salt (made by the server) are frozen; the percent may only grow.
        </p>
      }
      onSubmit={() =>
        create.mutate(
          { name, bucket_count: bucketCount, percent, experiments, metrics },
          { onSuccess: (h) => navigate(`/holdouts/${h.id}`) },
        )
      }
    >
      <div className="row">
        <label>
          Name
          <input value={name} onChange={(e) => setName(e.target.value)} required />
        </label>
        <HoldoutSize
          bucketCount={bucketCount}
          percent={percent}
          setBucketCount={setBucketCount}
          setPercent={setPercent}
        />
      </div>
      <ExperimentsChoice
        value={experiments}
        onChange={setExperiments}
        errors={fieldErrors(create.error, '#/experiments')}
      />
      <MetricsEditor metrics={metrics} onChange={setMetrics} />
    </MutationForm>
  );
}

/** The holdout's bucket count (frozen once created) and the percent held out (may only grow). */
function HoldoutSize({
  bucketCount,
  percent,
  setBucketCount,
  setPercent,
}: {
  bucketCount: number;
  percent: number;
  setBucketCount: (n: number) => void;
  setPercent: (n: number) => void;
}) {
  return (
    <>
      <BucketCountField value={bucketCount} onChange={setBucketCount} />
      <PercentField value={percent} onChange={setPercent} />
    </>
  );
}
