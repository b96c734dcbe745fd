import { useQuery } from '@tanstack/react-query';
import { useId } from 'react';
import { api, type Experiment, ok, type Results } from '../../api/client.ts';
import { isProblem } from '../../api/problem.ts';
import { DataTable } from '../../components/DataTable.tsx';
import { Loading, ProblemView } from '../../components/states.tsx';
import { experimentKeys } from '../experiments/queries.ts';
import { armValue, byMetric, effectValue, pValue, titleOf } from './format.ts';

type Breakdown = NonNullable<Results['breakdown']>;
type Slice = Breakdown['slices'][number];
type SliceResult = Slice['results'][string];

/**
 * The run's breakdown by `dimension` as the server computed it (`?dimension=`), when one is
 * chosen. "Split by" shows it and the CSV export adds its rows: one query, shared by key.
 */
export function useBreakdown(experimentId: string, run: Results, dimension: string) {
  return useQuery({
    enabled: dimension !== '',
    queryKey: [...experimentKeys.results(experimentId, run.computed_for), dimension] as const,
    queryFn: () =>
      ok(
        api.GET('/v1/experiments/{id}/results', {
          params: { path: { id: experimentId }, query: { day: run.computed_for, dimension } },
        }),
      ),
    retry: (n, e) => !isProblem(e) && n < 2,
  });
}

/**
 * "Split by": the run shown, per value of one of the experiment's dimensions, as the server
 * computed it (`?dimension=`). Every slice is marked exploratory: its p-values are raw, outside
 * the run's FDR correction, and it decides nothing; the run above stays the decision. The
 * chosen dimension is the results page's, so the export can follow it.
 */
export function SplitBy({
  experiment,
  run,
  dimension,
  onDimension,
}: {
  experiment: Experiment;
  run: Results;
  dimension: string;
  onDimension: (dimension: string) => void;
}) {
  const selectId = useId();
  const query = useBreakdown(experiment.id, run, dimension);
  return (
    <section className="card split-by" aria-label="Breakdowns">
      <label htmlFor={selectId}>Split by </label>
      <select
        id={selectId}
        data-testid="split-by"
        value={dimension}
        onChange={(e) => onDimension(e.target.value)}
      >
        <option value="">nothing (the run as a whole)</option>
        {(experiment.dimensions ?? []).map((d) => (
          <option key={d} value={d}>
            {d}
          </option>
        ))}
      </select>
      {dimension === '' ? null : query.error ? (
        <ProblemView error={query.error} />
      ) : query.isPending ? (
        <Loading what={`slices by ${dimension}`} />
      ) : query.data.breakdown ? (
        <Slices experiment={experiment} breakdown={query.data.breakdown} />
      ) : null}
    </section>
  );
}

function Slices({ experiment, breakdown }: { experiment: Experiment; breakdown: Breakdown }) {
  return (
    <>
      <p className="note" data-testid="exploratory-note">
        Exploratory: each slice has its own SRM check and tests with raw p-values, not corrected
        across slices or metrics, and never makes a decision. Values past the 20 with the most users
        are together in (other).
      </p>
      {breakdown.slices.length === 0 ? <p>No event in the window had this dimension.</p> : null}
      {breakdown.slices.map((s) => (
        <SliceView
          key={s.value}
          experiment={experiment}
          dimension={breakdown.dimension}
          slice={s}
        />
      ))}
    </>
  );
}

function SliceView({
  experiment,
  dimension,
  slice,
}: {
  experiment: Experiment;
  dimension: string;
  slice: Slice;
}) {
  const rows = byMetric(
    slice.results,
    experiment.metrics.map((m) => m.name),
  ).flatMap(([, r]) => r);
  return (
    <div className="slice" data-testid={`slice-${slice.value}`}>
      <h3>
        {dimension} = {slice.value} <span className="badge">exploratory</span>
      </h3>
      <p className="hint" data-testid="slice-summary">
        {slice.users} users · per arm:{' '}
        {Object.entries(slice.arms)
          .map(([a, s]) => `${a} ${s.users}`)
          .join(', ')}{' '}
        · SRM p {slice.srm.p_value === null ? '—' : pValue(slice.srm.p_value)}
        {slice.srm.halted ? ' (halted: no results in this slice)' : ''}
      </p>
      {rows.length === 0 ? null : (
        <DataTable
          label={`Slice ${dimension} = ${slice.value}`}
          columns={[
            'Metric',
            'Treatment',
            'Control value (n)',
            'Treatment value (n)',
            'Effect (95% CI)',
            'p-value (raw)',
          ]}
        >
          {rows.map((r) => (
            <SliceRow key={`${r.metric}::${r.treatment}`} experiment={experiment} r={r} />
          ))}
        </DataTable>
      )}
    </div>
  );
}

function SliceRow({ experiment, r }: { experiment: Experiment; r: SliceResult }) {
  const arm = (a: string) => `${armValue(r.kind, r.mean_per_arm[a])} (n = ${r.n_per_arm[a] ?? 0})`;
  return (
    <tr data-testid={`slice-row-${r.metric}-${r.treatment}`}>
      <th scope="row">{titleOf(experiment.metrics, r.metric)}</th>
      <td>{r.treatment}</td>
      <td data-testid="control-value">{arm(r.control)}</td>
      <td data-testid="treatment-value">{arm(r.treatment)}</td>
      <td data-testid="effect">
        {r.ok
          ? `${effectValue(r.kind, r.effect)} (${effectValue(r.kind, r.ci_low)} to ${effectValue(r.kind, r.ci_high)})`
          : `not computable: ${r.reason}`}
      </td>
      <td data-testid="p">{r.ok ? pValue(r.p_value) : '—'}</td>
    </tr>
  );
}
