import { useState } from 'react';
import { Link, useNavigate } from 'react-router';
import type { Holdout, MetricDefinition } from '../../api/client.ts';
import { BucketCountField } from '../../components/BucketCountField.tsx';
import { DataTable } from '../../components/DataTable.tsx';
import { ProblemView, QueryList } from '../../components/states.tsx';
import { MetricsEditor } from '../editor/MetricsEditor.tsx';
import { ExperimentsChoice, type HoldoutScope } from './ExperimentsChoice.tsx';
import { fieldErrors } from './field-errors.ts';
import { PercentField } from './PercentField.tsx';
import { useCreateHoldout, useHoldouts } from './queries.ts';

/** The org's holdouts in the order they were made, and a form to make one. */
export function HoldoutsPage() {
  const holdouts = useHoldouts();
  return (
    <section>
      <h1>Holdouts</h1>
      <p className="hint">
        A holdout keeps a share of users out of every experiment it covers, so the nightly run can
        compare them with everyone else: the total effect of what shipped.
      </p>
      <NewHoldoutForm />
      <QueryList query={holdouts} what="holdouts" empty="No holdouts yet.">
        {(list) => <HoldoutsTable holdouts={list} />}
      </QueryList>
    </section>
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
          <th scope="row">
            <Link to={`/holdouts/${h.id}`}>{h.name}</Link>
          </th>
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
    <form
      className="card editor"
      aria-label="New holdout"
      onSubmit={(e) => {
        e.preventDefault();
        create.mutate(
          { name, bucket_count: bucketCount, percent, experiments, metrics },
          { onSuccess: (h) => navigate(`/holdouts/${h.id}`) },
        );
      }}
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
      <div className="actions">
        <button type="submit" disabled={create.isPending}>
          Create holdout
        </button>
      </div>
      <p className="hint">
        Name, bucket count and salt (made by the server) are frozen; the percent may only grow.
      </p>
      {create.error ? <ProblemView error={create.error} /> : null}
    </form>
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
