import type { Holdout, Results } from '../../api/client.ts';
import { isProblem } from '../../api/problem.ts';
import { Loading, ProblemView } from '../../components/states.tsx';
import { ForestPlot } from '../results/ForestPlot.tsx';
import { byMetric, directionLabel, titleOf } from '../results/format.ts';
import { ResultTable } from '../results/ResultTable.tsx';
import { SrmBanner, SrmPassed } from '../results/SrmBanner.tsx';
import { useHoldoutResults } from './queries.ts';

/**
 * The nightly comparison of held-out users (`holdout`, the control) with everyone else
 * (`general`, the treatment), drawn with the experiment results' own plot and table. No verdict
 * banner: a holdout measures what shipped, there is nothing to ship.
 */
export function HoldoutResults({ holdout }: { holdout: Holdout }) {
  const results = useHoldoutResults(holdout.id);
  return (
    <section className="card" aria-labelledby="holdout-results">
      <h2 id="holdout-results">Results</h2>
      {results.isPending ? <Loading what="results" /> : null}
      {results.error && isProblem(results.error, '/problems/results-collecting') ? (
        <div role="status" data-testid="no-results">
          <p>
            <strong>No results yet: the nightly run computes them.</strong>
          </p>
          <p className="hint">{results.error.detail}</p>
        </div>
      ) : results.error ? (
        <ProblemView error={results.error} />
      ) : null}
      {results.data ? <RunView holdout={holdout} run={results.data} /> : null}
    </section>
  );
}

function RunView({ holdout, run }: { holdout: Holdout; run: Results }) {
  return (
    <>
      <p className="hint" data-testid="holdout-run">
        Nightly run {run.computed_for} · users: held out {run.arms.holdout?.users ?? 0}, general{' '}
        {run.arms.general?.users ?? 0}
        <SrmPassed srm={run.srm} />
      </p>
      <p className="hint">
        Effects are general minus held out: what the experiments the holdout covers did together.
      </p>
      {run.srm.halted ? (
        <SrmBanner srm={run.srm} />
      ) : (
        byMetric(
          run.results,
          holdout.metrics.map((m) => m.name),
        ).map(([metric, rows]) => {
          const title = titleOf(holdout.metrics, metric);
          return (
            <section key={metric} className="metric" aria-labelledby={`m-${metric}`}>
              <h3 id={`m-${metric}`}>
                {title}{' '}
                <span className="hint">
                  ({rows[0]?.kind}, {rows[0] ? directionLabel(rows[0].direction) : null})
                </span>
              </h3>
              <ForestPlot metric={metric} title={title} rows={rows} preliminary={run.preliminary} />
              <ResultTable rows={rows} preliminary={run.preliminary} />
            </section>
          );
        })
      )}
    </>
  );
}
