import { Link, Navigate } from 'react-router';
import type { Experiment, OfflineRun } from '../../api/client.ts';
import { QueryView } from '../../components/states.tsx';
import { useDatasets } from '../datasets/queries.ts';
import { ComparisonTable } from './ComparisonTable.tsx';
import { GatesPanel } from './GatesPanel.tsx';
import { ItemViewer } from './ItemViewer.tsx';
import { NonDeterminismPanel } from './NonDeterminismPanel.tsx';
import { useOfflineRun } from './queries.ts';
import { RunStatus } from './RunStatus.tsx';

/** One offline run of the experiment: what it pinned, its statistics once complete, its items. */
export function RunPage({ experiment, runId }: { experiment: Experiment; runId: string }) {
  const run = useOfflineRun(runId);
  return (
    <QueryView query={run} what="the offline run">
      {(r) =>
        // A run is reached through its own experiment, so a mistyped experiment still lands there.
        r.experiment_id !== experiment.id ? (
          <Navigate to={`/experiments/${r.experiment_id}/offline/${r.id}`} replace />
        ) : (
          <RunView run={r} />
        )
      }
    </QueryView>
  );
}

function RunView({ run }: { run: OfflineRun }) {
  const datasets = useDatasets();
  const dataset = datasets.data?.find((d) => d.id === run.dataset_id);
  return (
    <section aria-labelledby="run-heading">
      <p>
        <Link to={`/experiments/${run.experiment_id}/offline`}>All offline runs</Link>
      </p>
      <div className="page-head">
        <h2 id="run-heading">Offline run of {new Date(run.created_at).toLocaleString()}</h2>
        <RunStatus run={run} />
      </div>
      <p className="hint" data-testid="pinned">
        Dataset <Link to={`/datasets/${run.dataset_id}`}>{dataset?.name ?? run.dataset_id}</Link>{' '}
        version {run.dataset_version} ({run.item_count} items) · experiment version{' '}
        {run.experiment_version} · baseline {run.baseline} · {run.repeats}{' '}
        {run.repeats === 1 ? 'repeat' : 'repeats'}
        {run.note ? ` · ${run.note}` : ''}
      </p>
      <Progress run={run} />
      {run.status === 'complete' ? (
        <>
          <GatesPanel run={run} />
          <section aria-labelledby="comparisons-heading">
            <h3 id="comparisons-heading">Comparisons</h3>
            <ComparisonTable run={run} />
          </section>
          <NonDeterminismPanel run={run} />
        </>
      ) : null}
      <ItemViewer run={run} />
    </section>
  );
}

/**
 * Where the run stands: the results received while it runs, the reason when it failed, and
 * once complete what arrived, what failed and what is missing (the statistics use what is there).
 */
function Progress({ run }: { run: OfflineRun }) {
  const count = (n: number) => n.toLocaleString('en-US');
  if (run.status === 'failed')
    return (
      <div className="problem" role="alert">
        <strong>The run failed while scoring</strong>
        {run.failure_reason ? <p>{run.failure_reason}</p> : null}
      </div>
    );
  if (run.status !== 'complete' || run.coverage === null)
    return (
      <p className="note" data-testid="progress">
        {run.status === 'scoring' ? 'Scoring' : 'Running'}: {count(run.received_results)} of{' '}
        {count(run.expected_results)} results received. The comparisons, gates and non-determinism
        appear when the run completes.
      </p>
    );
  const c = run.coverage;
  return (
    <div data-testid="coverage">
      <p>
        {count(c.received_results)} of {count(c.expected_results)} results ·{' '}
        {count(c.failed_results)} failed · {count(c.missing_results)} missing
      </p>
      {c.missing.length > 0 ? (
        <details>
          <summary>
            Missing results
            {c.missing_results > c.missing.length ? ` (first ${c.missing.length})` : ''}
          </summary>
          <ul>
            {c.missing.map((m) => (
              <li key={`${m.variant}|${m.item_id}|${m.repeat}`}>
                {m.variant}, item <code>{m.item_id}</code>, repeat {m.repeat}
              </li>
            ))}
          </ul>
        </details>
      ) : null}
    </div>
  );
}
