import type { Comparison, OfflineRun, Scorer } from '../../api/client.ts';
import { DataTable } from '../../components/DataTable.tsx';
import { pValue } from '../results/format.ts';
import { barScale, CiBar } from './CiBar.tsx';
import { differenceValue, directionWords, meanValue } from './scorer-units.ts';

const maybeP = (p: number | null) => (p === null ? '—' : pValue(p));

/** The run's comparisons in the run's own order: its scorers, then its treatments. */
export function comparisonsInOrder(run: OfflineRun): Array<{ scorer: Scorer; rows: Comparison[] }> {
  const all = Object.values(run.comparisons ?? {});
  return run.scorers
    .map((scorer) => ({
      scorer,
      rows: run.variants.flatMap((v) =>
        all.filter((c) => c.scorer === scorer.name && c.treatment === v),
      ),
    }))
    .filter((g) => g.rows.length > 0);
}

/**
 * Scorers × treatments: the means, the mean difference with its 95% interval (as numbers and
 * as a bar), the FDR-adjusted p-value the outcome is decided on with the raw one beside it,
 * the outcome, the items that improved and regressed, and non-inferiority when a margin is set.
 * The dashboard decides nothing: every word comes from the run.
 */
export function ComparisonTable({ run }: { run: OfflineRun }) {
  const groups = comparisonsInOrder(run);
  if (groups.length === 0)
    return (
      <p className="empty">No comparison: the run has no scorer with values, or no treatment.</p>
    );
  return (
    <DataTable
      label="Comparisons"
      className="comparisons"
      caption={`Each treatment against ${run.baseline}, paired by item (mean over repeats)`}
      columns={[
        'Scorer',
        'Treatment',
        'Items',
        `Baseline mean (${run.baseline})`,
        'Treatment mean',
        'Mean difference (95% CI)',
        'FDR-adjusted p-value',
        'Outcome',
        'Items improved',
        'Items regressed',
        'Items tied',
        'Non-inferiority',
      ]}
    >
      {groups.flatMap(({ scorer, rows }) => {
        const scale = barScale(rows);
        return rows.map((c) => (
          <ComparisonRow key={`${c.scorer}::${c.treatment}`} c={c} scorer={scorer} scale={scale} />
        ));
      })}
    </DataTable>
  );
}

function ComparisonRow({
  c,
  scorer,
  scale,
}: {
  c: Comparison;
  scorer: Scorer;
  scale: [number, number];
}) {
  const interval =
    c.ci_low === null || c.ci_high === null
      ? 'no interval (fewer than 2 items)'
      : `${differenceValue(scorer.kind, c.ci_low)} to ${differenceValue(scorer.kind, c.ci_high)}`;
  return (
    <tr data-testid={`comparison-${c.scorer}-${c.treatment}`}>
      <th scope="row">
        {c.scorer} <span className="hint line">{directionWords(c.direction)}</span>
      </th>
      <td>{c.treatment}</td>
      <td data-testid="n-items">{c.n_items}</td>
      <td data-testid="mean-baseline">{meanValue(scorer.kind, c.mean_baseline)}</td>
      <td data-testid="mean-treatment">{meanValue(scorer.kind, c.mean_treatment)}</td>
      <td data-testid="difference">
        <div className="difference">
          <span>
            {differenceValue(scorer.kind, c.mean_difference)}{' '}
            <span className="hint" data-testid="interval">
              ({interval})
            </span>
          </span>
          <CiBar
            row={c}
            scale={scale}
            label={`${c.scorer}, ${c.treatment}: mean difference ${differenceValue(scorer.kind, c.mean_difference)}, 95% CI ${interval}, ${c.outcome}`}
          />
        </div>
      </td>
      <td>
        <strong data-testid="p-fdr">{maybeP(c.p_value_fdr)}</strong>{' '}
        <span className="hint line">
          p {maybeP(c.p_value)}, {c.test === 'mcnemar_exact' ? 'exact McNemar' : 'paired t'}
        </span>
      </td>
      <td data-testid="outcome">
        <Outcome c={c} kind={scorer.kind} />
      </td>
      <td data-testid="improved">{c.improved_items}</td>
      <td data-testid="regressed">{c.regressed_items}</td>
      <td data-testid="tied">{c.tied_items}</td>
      <td data-testid="non-inferiority">
        <NonInferiority c={c} kind={scorer.kind} />
      </td>
    </tr>
  );
}

/** Better in green, worse in red; inconclusive with how many items would settle it. */
function Outcome({ c, kind }: { c: Comparison; kind: Scorer['kind'] }) {
  if (c.outcome === 'better') return <span className="badge better">better (significant)</span>;
  if (c.outcome === 'worse') return <span className="badge worse">worse (significant)</span>;
  return (
    <>
      <span className="badge">inconclusive</span>
      {c.items_needed !== null ? (
        <span className="hint line wraps" data-testid="items-needed">
          about {c.items_needed.toLocaleString('en-US')} items would detect this difference
        </span>
      ) : null}
      {/* A zero detectable difference only says every item tied: nothing to add. */}
      {c.mdd !== null && c.mdd > 0 ? (
        <span className="hint line wraps" data-testid="mdd">
          these {c.n_items} items detect {differenceValue(kind, c.mdd).replace(/^\+/, '±')}
        </span>
      ) : null}
    </>
  );
}

function NonInferiority({ c, kind }: { c: Comparison; kind: Scorer['kind'] }) {
  if (c.non_inferior === null || c.non_inferiority_margin === null)
    return <span className="hint">no margin</span>;
  const margin = `margin ${differenceValue(kind, c.non_inferiority_margin).replace(/^\+/, '')}`;
  return c.non_inferior ? (
    <span className="badge better">non-inferior ({margin})</span>
  ) : (
    <span className="badge worse">not shown non-inferior ({margin})</span>
  );
}
