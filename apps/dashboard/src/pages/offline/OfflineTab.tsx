import { Link } from 'react-router';
import type { Experiment, OfflineRun } from '../../api/client.ts';
import { DataTable } from '../../components/DataTable.tsx';
import { QueryList } from '../../components/states.tsx';
import { useDatasets } from '../datasets/queries.ts';
import { useOfflineRuns } from './queries.ts';
import { RunStatus } from './RunStatus.tsx';

/** The experiment's offline runs, newest first as the server lists them. */
export function OfflineTab({ experiment }: { experiment: Experiment }) {
  const runs = useOfflineRuns(experiment.id);
  return (
    <QueryList
      query={runs}
      what="offline runs"
      empty={
        <>
          No offline runs yet. A client library's <code>evaluate</code> runs a dataset through the
          variants and records one here; <Link to="/datasets">datasets</Link> hold the items.
        </>
      }
    >
      {(list) => <RunsTable experimentId={experiment.id} runs={list} />}
    </QueryList>
  );
}

function RunsTable({ experimentId, runs }: { experimentId: string; runs: OfflineRun[] }) {
  const datasets = useDatasets();
  const nameOf = (id: string) => datasets.data?.find((d) => d.id === id)?.name ?? id;
  return (
    <DataTable
      label="Offline runs"
      columns={[
        'Started',
        'Status',
        'Dataset',
        'Experiment version',
        'Variants',
        'Repeats',
        'Results',
        'Gates',
        'Note',
      ]}
    >
      {runs.map((r) => (
        <tr key={r.id} data-testid={`run-${r.id}`}>
          <th scope="row">
            <Link to={`/experiments/${experimentId}/offline/${r.id}`}>
              {new Date(r.created_at).toLocaleString()}
            </Link>
          </th>
          <td>
            <RunStatus run={r} />
          </td>
          <td>
            <Link to={`/datasets/${r.dataset_id}`}>{nameOf(r.dataset_id)}</Link>{' '}
            <span className="hint">v{r.dataset_version}</span>
          </td>
          <td>{r.experiment_version}</td>
          <td>{r.variants.join(', ')}</td>
          <td>{r.repeats}</td>
          <td data-testid="results">
            {r.received_results.toLocaleString('en-US')} of{' '}
            {r.expected_results.toLocaleString('en-US')}
          </td>
          <td data-testid="gates">
            <GatesSummary run={r} />
          </td>
          <td>{r.note ?? ''}</td>
        </tr>
      ))}
    </DataTable>
  );
}

/** "all passed", or the treatments whose gate failed; nothing before the run completes. */
function GatesSummary({ run }: { run: OfflineRun }) {
  if (run.gates === null) return <span className="hint">—</span>;
  const failed = Object.entries(run.gates).filter(([, g]) => !g.passed);
  if (Object.keys(run.gates).length === 0) return <span className="hint">no treatment</span>;
  if (failed.length === 0) return <span className="badge better">all passed</span>;
  return <span className="badge worse">failed: {failed.map(([t]) => t).join(', ')}</span>;
}
