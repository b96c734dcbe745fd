import type { NonDeterminism, OfflineRun, Scorer } from '../../api/client.ts';
import { DataTable } from '../../components/DataTable.tsx';
import { num } from '../results/format.ts';
import { share } from './scorer-units.ts';

/** How many unstable item ids a row names before it only counts them. */
const IDS_SHOWN = 5;

/**
 * How much a variant's answers move between repeats of the same item (within) against how much
 * items differ from each other (between); for 0/1 scorers, the share of items whose repeats
 * disagree and the share that passed every repeat. Measured only with two repeats or more.
 */
export function NonDeterminismPanel({ run }: { run: OfflineRun }) {
  const rows = ordered(run);
  return (
    <section aria-labelledby="nondeterminism-heading">
      <h3 id="nondeterminism-heading">Non-determinism</h3>
      {run.repeats < 2 ? (
        <p className="empty" data-testid="no-repeats">
          One repeat per item: a run with 2 repeats or more measures how much each variant's answers
          vary on the same item.
        </p>
      ) : rows.length === 0 ? (
        <p className="empty">No scorer has values to measure.</p>
      ) : (
        <DataTable
          label="Non-determinism"
          columns={[
            'Scorer',
            'Variant',
            'Items',
            'SD within items',
            'SD between items',
            'Flip rate',
            'Passed every repeat',
            'Unstable items',
          ]}
        >
          {rows.map((s) => (
            <tr key={`${s.scorer}::${s.variant}`} data-testid={`summary-${s.scorer}-${s.variant}`}>
              <th scope="row">{s.scorer}</th>
              <td>{s.variant}</td>
              <td>{s.n_items}</td>
              <td data-testid="sd-within">{num(s.sd_within_items)}</td>
              <td data-testid="sd-between">{num(s.sd_between_items)}</td>
              <td data-testid="flip-rate">{share(s.flip_rate)}</td>
              <td data-testid="pass-all">{share(s.pass_all)}</td>
              <td data-testid="unstable">
                <UnstableItems ids={s.unstable_items} />
              </td>
            </tr>
          ))}
        </DataTable>
      )}
    </section>
  );
}

/** The summary in the run's order: its scorers, then its variants (the baseline first). */
function ordered(run: OfflineRun): NonDeterminism[] {
  const all = Object.values(run.summary ?? {});
  return run.scorers.flatMap((sc: Scorer) =>
    run.variants.flatMap((v) => all.filter((s) => s.scorer === sc.name && s.variant === v)),
  );
}

function UnstableItems({ ids }: { ids: string[] | null }) {
  if (ids === null) return <span className="hint">—</span>;
  if (ids.length === 0) return <span>none</span>;
  const shown = ids.slice(0, IDS_SHOWN);
  return (
    <span>
      {shown.map((id, i) => (
        <span key={id}>
          {i > 0 ? ', ' : ''}
          <code>{id}</code>
        </span>
      ))}
      {ids.length > IDS_SHOWN ? ` and ${ids.length - IDS_SHOWN} more` : ''}
    </span>
  );
}
