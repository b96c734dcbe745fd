import { Link, useSearchParams } from 'react-router';
import type { Body, SummaryEntry } from '../../api/client.ts';
import { DataTable } from '../../components/DataTable.tsx';
import { Empty, QueryView } from '../../components/states.tsx';
import { StatusBadge } from '../lifecycle/StatusBadge.tsx';
import { ExperimentState } from './ExperimentState.tsx';
import { useExperiments, useResultsSummary } from './queries.ts';
import { StatusFilter } from './StatusFilter.tsx';

type Listed = Body<'/v1/experiments', 'get'>[number];

/** The list, filtered by status in the URL (`?status=archived`), so every filter is a link. */
export function ExperimentsPage() {
  const [params, setParams] = useSearchParams();
  const status = params.get('status') ?? '';
  const experiments = useExperiments(status || undefined);
  return (
    <section>
      <div className="page-head">
        <h1>Experiments</h1>
        <StatusFilter
          value={status}
          onChange={(v) => setParams(v === '' ? {} : { status: v }, { replace: true })}
        />
        <Link className="button" to="/experiments/new">
          New experiment
        </Link>
      </div>
      <QueryView query={experiments} what="experiments">
        {(list) =>
          list.length > 0 ? (
            <ExperimentsTable list={list} />
          ) : status === '' ? (
            <Empty>No experiments yet. Create one to start assigning users.</Empty>
          ) : (
            <Empty>No experiment has this status.</Empty>
          )
        }
      </QueryView>
    </section>
  );
}

function ExperimentsTable({ list }: { list: Listed[] }) {
  const summary = useResultsSummary();
  const latest = new Map<string, SummaryEntry>(
    (summary.data ?? []).map((r) => [r.experiment_id, r] as const),
  );
  return (
    <DataTable
      label="All experiments"
      columns={['Name', 'Status', 'Last verdict', 'Last run', 'Version', 'Arms']}
    >
      {list.map((e) => (
        <tr key={e.id}>
          <td>
            <Link to={`/experiments/${e.id}/results`}>{e.name}</Link>
          </td>
          <td>
            <StatusBadge status={e.status} />
            {e.status !== 'stopped' || e.stop === null ? null : (
              <span className="hint"> serves {e.stop.served_variant}</span>
            )}
          </td>
          <td>
            <ExperimentState id={e.id} status={e.status} latest={latest.get(e.id)} />
          </td>
          <td>{lastRunText(latest.get(e.id), e.last_run)}</td>
          <td>v{e.version}</td>
          <td>{e.allocation.map((a) => `${a.variant} ${a.weight}%`).join(', ')}</td>
        </tr>
      ))}
    </DataTable>
  );
}

type LastRun = Listed['last_run'];

/**
 * The run with results the summary serves, or else when the pipeline last looked and what it
 * found (a collecting run stores no results, so the summary does not list it).
 */
function lastRunText(computed: SummaryEntry | undefined, last: LastRun): string {
  if (computed) return computed.computed_for;
  if (last === null) return '—';
  return last.status === 'collecting' ? `${last.label} · still collecting` : last.label;
}
