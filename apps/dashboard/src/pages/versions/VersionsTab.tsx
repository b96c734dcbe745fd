import { useSearchParams } from 'react-router';
import type { Experiment } from '../../api/client.ts';
import { DataTable } from '../../components/DataTable.tsx';
import { Empty, QueryView } from '../../components/states.tsx';
import { VersionPickers } from '../../components/VersionPickers.tsx';
import { useVersions } from '../experiments/queries.ts';
import { configOf, diffConfig } from './diff-config.ts';

const show = (x: unknown) => (x === undefined ? '(absent)' : JSON.stringify(x));

/** Every retained version, newest first, and the difference between any two (in the URL). */
export function VersionsTab({ experiment }: { experiment: Experiment }) {
  const versions = useVersions(experiment.id);
  const [params, setParams] = useSearchParams();
  return (
    <QueryView query={versions} what="versions">
      {(vs) => {
        const newest = vs[0]?.version ?? 1;
        const from = Number(params.get('from') ?? Math.max(1, newest - 1));
        const to = Number(params.get('to') ?? newest);
        const a = vs.find((v) => v.version === from);
        const b = vs.find((v) => v.version === to);
        const changes = a && b ? diffConfig(configOf(a), configOf(b)) : [];
        const pick = (name: 'from' | 'to', value: number) =>
          setParams({ from: String(from), to: String(to), [name]: String(value) });
        return (
          <>
            <VersionTable versions={vs} />
            {vs.length < 2 ? (
              <p className="hint" data-testid="one-version">
                There is one version so far: saving a change in Edit mints the next, and the
                differences between any two show here.
              </p>
            ) : (
              <CompareVersions versions={vs} from={from} to={to} changes={changes} onPick={pick} />
            )}
          </>
        );
      }}
    </QueryView>
  );
}

function VersionTable({ versions }: { versions: Experiment[] }) {
  return (
    <DataTable
      label="Version history"
      caption="Versions, newest first"
      columns={['Version', 'Minted', 'Allocation']}
    >
      {versions.map((v) => (
        <tr key={v.version}>
          <th scope="row">v{v.version}</th>
          <td>{new Date(v.updated_at).toLocaleString()}</td>
          <td>{v.allocation.map((s) => `${s.variant} ${s.weight}%`).join(', ')}</td>
        </tr>
      ))}
    </DataTable>
  );
}

/** Two version pickers and the config paths that differ between them. */
function CompareVersions({
  versions,
  from,
  to,
  changes,
  onPick,
}: {
  versions: Experiment[];
  from: number;
  to: number;
  changes: ReturnType<typeof diffConfig>;
  onPick: (name: 'from' | 'to', value: number) => void;
}) {
  return (
    <div className="card">
      <h2>Compare versions</h2>
      <VersionPickers versions={versions} from={from} to={to} onPick={onPick} />
      {changes.length === 0 ? (
        <Empty>
          No differences between v{from} and v{to}.
        </Empty>
      ) : (
        <ul className="diff" aria-label={`Changes from v${from} to v${to}`}>
          {changes.map((c) => (
            <li key={c.path}>
              <code>{c.path}</code>: <del>{show(c.from)}</del> → <ins>{show(c.to)}</ins>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
