import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useSearchParams } from 'react-router';
import { api, ok, type Results } from '../../api/client.ts';
import { ProblemView } from '../../components/states.tsx';
import { experimentKeys } from '../experiments/queries.ts';
import { download, runCsv } from './export-run.ts';

const runLabel = (label: string) =>
  label.startsWith('manual-') ? `Preliminary ${label.slice(7)}` : `Nightly ${label}`;

/** The dimension "Split by" shows, and its breakdown once the server has answered. */
export interface ChosenSlices {
  dimension: string;
  breakdown: Results['breakdown'] | undefined;
}

/**
 * Run picker (nightly days, manual labels), preliminary analysis and export of the served run;
 * with a dimension chosen, the CSV adds its slices, and waits for them.
 */
export function RunControls({
  id,
  run,
  slices = null,
}: {
  id: string;
  run: Results | null;
  slices?: ChosenSlices | null;
}) {
  const [params, setParams] = useSearchParams();
  const picked = params.get('run') ?? '';
  return (
    <div className="run-controls">
      {run ? (
        <label>
          Run
          <select
            value={picked || run.computed_for}
            onChange={(e) => setParams({ run: e.target.value })}
          >
            {run.available_days.map((d) => (
              <option key={d} value={d}>
                {runLabel(d)}
              </option>
            ))}
          </select>
        </label>
      ) : null}
      <PreliminaryButton id={id} onRun={(label) => setParams({ run: label })} />
      {run ? <ExportButtons run={run} slices={slices} /> : null}
    </div>
  );
}

/** CSV (with the chosen slices, once they are here) and JSON of the served run. */
function ExportButtons({ run, slices }: { run: Results; slices: ChosenSlices | null }) {
  return (
    <>
      <button
        type="button"
        disabled={slices !== null && !slices.breakdown}
        onClick={() =>
          download(
            `${run.experiment_id}-${run.computed_for}${slices ? `-by-${slices.dimension}` : ''}.csv`,
            'text/csv',
            runCsv(run, slices?.breakdown),
          )
        }
      >
        {slices ? `Export CSV (split by ${slices.dimension})` : 'Export CSV'}
      </button>
      <button
        type="button"
        onClick={() =>
          download(
            `${run.experiment_id}-${run.computed_for}.json`,
            'application/json',
            JSON.stringify(run, null, 2),
          )
        }
      >
        Export JSON
      </button>
    </>
  );
}

function PreliminaryButton({ id, onRun }: { id: string; onRun: (label: string) => void }) {
  const queryClient = useQueryClient();
  const analyze = useMutation({
    mutationFn: () => ok(api.POST('/v1/experiments/{id}/analyze', { params: { path: { id } } })),
    onSuccess: async (r) => {
      await queryClient.invalidateQueries({ queryKey: ['experiment', id, 'results'] });
      await queryClient.invalidateQueries({ queryKey: experimentKeys.summary });
      if (r.status !== 'collecting') onRun(r.computed_for);
    },
  });
  return (
    <>
      <button type="button" onClick={() => analyze.mutate()} disabled={analyze.isPending}>
        {analyze.isPending ? 'Running…' : 'Run preliminary analysis'}
      </button>
      {analyze.data?.status === 'collecting' ? (
        <span role="status">
          Still Collecting: not every arm has enough events for a preliminary analysis.
        </span>
      ) : null}
      {analyze.error ? <ProblemView error={analyze.error} /> : null}
    </>
  );
}
