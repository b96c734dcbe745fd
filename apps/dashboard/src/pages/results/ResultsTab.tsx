import { useQuery } from '@tanstack/react-query';
import { startTransition, useEffect, useState } from 'react';
import { useSearchParams } from 'react-router';
import { api, type Experiment, type MetricResult, ok, type Results } from '../../api/client.ts';
import { isProblem } from '../../api/problem.ts';
import { armOrder } from '../../charts/arm-colour.ts';
import { Empty, Loading, ProblemView } from '../../components/states.tsx';
import { experimentKeys, useResultsSummary } from '../experiments/queries.ts';
import { armDistributions } from './arm-distributions.ts';
import { CapNote } from './CapNote.tsx';
import { CollectingPanel } from './CollectingPanel.tsx';
import { CostPanel } from './CostPanel.tsx';
import { Distributions } from './Distributions.tsx';
import { ForestPlot } from './ForestPlot.tsx';
import { byMetric, directionLabel, titleOf } from './format.ts';
import { GuardrailBanner } from './GuardrailBanner.tsx';
import { MethodOverride } from './MethodOverride.tsx';
import { ResultTable } from './ResultTable.tsx';
import { RunControls } from './RunControls.tsx';
import { SplitBy, useBreakdown } from './SplitBy.tsx';
import { SrmBanner, SrmPassed } from './SrmBanner.tsx';
import { TargetingShare } from './TargetingShare.tsx';
import { VerdictBanner } from './VerdictBanner.tsx';

export function ResultsTab({ experiment }: { experiment: Experiment }) {
  const [params] = useSearchParams();
  const run = params.get('run') ?? undefined;
  // The default view is the most recently computed run, which is exactly the experiment's entry
  // in the summary: no second request, and a collecting experiment (no entry) is shown as such
  // without asking the results route for its 404.
  const summary = useResultsSummary();
  const named = useQuery({
    enabled: run !== undefined,
    queryKey: experimentKeys.results(experiment.id, run),
    queryFn: () =>
      ok(
        api.GET('/v1/experiments/{id}/results', {
          params: { path: { id: experiment.id }, query: { day: run } },
        }),
      ),
    // A run that does not exist is an answer, not a failure worth retrying.
    retry: (n, e) => !isProblem(e) && n < 2,
  });
  const query = run === undefined ? summary : named;
  if (query.error)
    return (
      <>
        <RunControls id={experiment.id} run={null} />
        <ProblemView error={query.error} />
      </>
    );
  if (query.isPending) return <Loading what="results" />;
  const served =
    run === undefined
      ? summary.data?.find((r) => r.experiment_id === experiment.id)
      : (named.data as Results | undefined);
  if (!served)
    return (
      <>
        <RunControls id={experiment.id} run={null} />
        {experiment.status === 'running' ? (
          <CollectingPanel experiment={experiment} />
        ) : (
          <Empty>
            {experiment.stop === null
              ? 'No results: a draft collects nothing until it is started.'
              : 'No results: it stopped before a run found enough events in every arm.'}
          </Empty>
        )}
      </>
    );
  return <RunView experiment={experiment} run={served} />;
}

function RunView({ experiment, run }: { experiment: Experiment; run: Results }) {
  // The decision (forest plots, p-values) paints first; the per-arm histograms, the heaviest
  // charts, follow in a transition that never holds up the first paint.
  const [histograms, setHistograms] = useState(false);
  useEffect(() => startTransition(() => setHistograms(true)), []);
  // "Split by"'s dimension: the CSV export adds the slices shown.
  const [dimension, setDimension] = useState('');
  const breakdown = useBreakdown(experiment.id, run, dimension);
  return (
    <>
      <RunControls
        id={experiment.id}
        run={run}
        slices={dimension === '' ? null : { dimension, breakdown: breakdown.data?.breakdown }}
      />
      <RunLine run={run} />
      <TargetingShare experiment={experiment} run={run} />
      <VerdictBanner decision={run.decision} />
      <GuardrailBanner run={run} metrics={experiment.metrics} />
      {run.srm.halted ? null : <CostPanel experiment={experiment} run={run} />}
      {run.preliminary ? (
        <p className="note">
          A preliminary run is kept for reference; the nightly run remains the default view once it
          lands. Its intervals and p-values are the always-valid (sequential) ones the decision is
          made on, so looking early cannot raise a false alarm; the fixed-horizon ones are shown for
          reference only.
        </p>
      ) : null}
      {experiment.dimensions?.length && !run.srm.halted ? (
        <SplitBy
          experiment={experiment}
          run={run}
          dimension={dimension}
          onDimension={setDimension}
        />
      ) : null}
      {run.srm.halted ? (
        <SrmBanner srm={run.srm} />
      ) : (
        byMetric(
          run.results,
          experiment.metrics.map((m) => m.name),
        ).map(([metric, rows]) => (
          <MetricSection
            key={metric}
            experiment={experiment}
            metric={metric}
            rows={rows}
            preliminary={run.preliminary}
            histograms={histograms}
          />
        ))
      )}
    </>
  );
}

/** Which run this is, its window, users per arm, and a passed SRM check. */
function RunLine({ run }: { run: Results }) {
  return (
    <p className="hint">
      {run.preliminary ? 'Preliminary (manual) run' : 'Nightly run'} {run.computed_for} · window{' '}
      {run.window.start.slice(0, 10)} to {run.window.end.slice(0, 10)} · users per arm:{' '}
      {Object.entries(run.arms)
        .map(([a, s]) => `${a} ${s.users}`)
        .join(', ')}
      <SrmPassed srm={run.srm} />
    </p>
  );
}

/** One metric's plot, table, test override and (after the first paint) histograms. */
function MetricSection({
  experiment,
  metric,
  rows,
  preliminary,
  histograms,
}: {
  experiment: Experiment;
  metric: string;
  rows: MetricResult[];
  preliminary: boolean;
  histograms: boolean;
}) {
  const method = experiment.metrics.find((m) => m.name === metric)?.method_default;
  const title = titleOf(experiment.metrics, metric);
  return (
    <section className="card metric" aria-labelledby={`m-${metric}`}>
      <h2 id={`m-${metric}`} data-testid={`title-${metric}`}>
        {title}{' '}
        <span className="hint">
          ({title === metric ? '' : `${metric}, `}
          {rows[0]?.kind}, {rows[0]?.category},{' '}
          <span data-testid={`direction-${metric}`}>
            {rows[0] ? directionLabel(rows[0].direction) : null}
          </span>
          )
        </span>
      </h2>
      <ForestPlot metric={metric} title={title} rows={rows} preliminary={preliminary} />
      <ResultTable rows={rows} preliminary={preliminary} />
      <CapNote rows={rows} />
      <MethodOverride
        id={experiment.id}
        metric={metric}
        current={rows[0]?.test ?? method ?? 'welch_t'}
      />
      {(histograms ? armDistributions(rows) : []).map((d) => (
        <Distributions
          key={d.title}
          title={d.title}
          dist={d.dist}
          variants={armOrder(experiment)}
        />
      ))}
    </section>
  );
}
