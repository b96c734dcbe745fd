import { useId } from 'react';
import type { OfflineRun, RunItem } from '../../api/client.ts';
import { DataTable } from '../../components/DataTable.tsx';
import { shownValue as shown } from '../../components/shown-value.ts';
import { num } from '../results/format.ts';
import { differenceValue } from './scorer-units.ts';

type Result = RunItem['variants'][string][number];
const MEASURED: readonly string[] = ['latency_ms', 'total_tokens', 'cost', 'error_rate'];

/**
 * One item: its input and expected output, then a table with a column per variant (the
 * baseline first) and a row per repeat, so the outputs for the same repeat sit side by side.
 */
/** A run's item, and the scorer and treatment whose difference is shown for it. */
interface ItemOfRun {
  item: RunItem;
  run: OfflineRun;
  scorer: string | null;
  treatment: string | null;
}

export function RunItemCard(props: ItemOfRun) {
  const { item, run } = props;
  // Item ids are the caller's (spaces and all): not usable as an element id.
  const headingId = useId();
  return (
    <article className="card run-item" aria-labelledby={headingId} data-testid="run-item">
      <div className="page-head">
        <h4 id={headingId}>
          Item <code>{item.id}</code>
        </h4>
        <Difference {...props} />
        {item.group !== null ? <span className="hint">group {item.group}</span> : null}
      </div>
      <dl className="item-texts">
        <dt>Input</dt>
        <dd>
          <pre data-testid="input">{shown(item.input)}</pre>
        </dd>
        <dt>Expected output</dt>
        <dd>
          <pre data-testid="expected">{shown(item.expected_output)}</pre>
        </dd>
      </dl>
      <OutputsTable item={item} run={run} />
    </article>
  );
}

/** A column per variant (the baseline first), a row per repeat. */
function OutputsTable({ item, run }: { item: RunItem; run: OfflineRun }) {
  const repeats = Array.from({ length: run.repeats }, (_, r) => r);
  return (
    <DataTable
      label={`Outputs for item ${item.id}`}
      className="outputs"
      columns={['Repeat', ...run.variants.map((v) => (v === run.baseline ? `${v} (baseline)` : v))]}
    >
      {repeats.map((r) => (
        <tr key={r}>
          <th scope="row">{r}</th>
          {run.variants.map((v) => (
            <td key={v} data-testid={`output-${v}-${r}`}>
              <ResultCell result={item.variants[v]?.find((x) => x.repeat === r)} run={run} />
            </td>
          ))}
        </tr>
      ))}
    </DataTable>
  );
}

/** The item's difference on the chosen scorer, as regressed (red) or improved (green) by its direction. */
function Difference({ item, run, scorer, treatment }: ItemOfRun) {
  if (scorer === null || treatment === null) return null;
  const s = run.scorers.find((x) => x.name === scorer);
  const d = item.difference;
  const what = `${treatment} vs ${run.baseline} on ${scorer}`;
  if (d === null)
    return (
      <span className="badge" data-testid="item-difference">
        no difference ({what}: a value is missing)
      </span>
    );
  const better = s?.direction === 'decrease' ? d < 0 : d > 0;
  const word = d === 0 ? 'tied' : better ? 'improved' : 'regressed';
  const tone = d === 0 ? '' : better ? ' better' : ' worse';
  return (
    <span className={`badge${tone}`} data-testid="item-difference">
      {word} {differenceValue(s?.kind, d)} ({what})
    </span>
  );
}

function ResultCell({ result, run }: { result: Result | undefined; run: OfflineRun }) {
  if (result === undefined) return <span className="hint">missing</span>;
  // The measured scorers repeat the measurements on the line below, and error_rate the error.
  const scored = run.scorers.filter(
    (s) => !MEASURED.includes(s.kind) && result.scores[s.name] !== undefined,
  );
  const measured = [
    result.latency_ms !== null ? `${result.latency_ms} ms` : null,
    result.input_tokens !== null || result.output_tokens !== null
      ? `${(result.input_tokens ?? 0) + (result.output_tokens ?? 0)} tokens`
      : null,
    result.cost !== null ? `$${result.cost}` : null,
    result.model,
  ].filter((x): x is string => x !== null);
  return (
    <div className="result">
      {result.error !== null ? (
        <p className="result-error">
          <strong>Error:</strong> {result.error}
        </p>
      ) : (
        <pre>{shown(result.output)}</pre>
      )}
      {scored.length > 0 ? (
        <ul className="scores" aria-label="Scores">
          {scored.map((s) => (
            <li key={s.name}>
              {s.name} {num(result.scores[s.name])}
            </li>
          ))}
        </ul>
      ) : null}
      {measured.length > 0 ? <p className="hint">{measured.join(' · ')}</p> : null}
    </div>
  );
}
