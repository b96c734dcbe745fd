import { useState } from 'react';
import { Link } from 'react-router';
import type { Prompt } from '../../api/client.ts';
import { useWhoami } from '../../auth/whoami.ts';
import { DataTable } from '../../components/DataTable.tsx';
import { Form } from '../../components/Form.tsx';
import { QueryList } from '../../components/states.tsx';
import { ActionDialog } from '../lifecycle/ActionDialog.tsx';
import { type LabelMove, useLabelHistory, useMoveLabel } from './queries.ts';

/** The labels, the form that moves one (admins and owners) and every move so far. */
export function LabelsCard({ prompt }: { prompt: Prompt }) {
  const history = useLabelHistory(prompt.id);
  return (
    <section className="card" aria-labelledby="labels-heading">
      <h2 id="labels-heading">Labels</h2>
      <MoveLabelForm prompt={prompt} />
      <h3>Label history</h3>
      <QueryList query={history} what="the label history" empty="No label has been set yet.">
        {(moves) => <History moves={moves} />}
      </QueryList>
    </section>
  );
}

function History({ moves }: { moves: LabelMove[] }) {
  return (
    <DataTable label="Label history" columns={['When', 'Label', 'Moved', 'By']}>
      {moves.map((m) => (
        <tr key={m.id}>
          <td>{new Date(m.at).toLocaleString()}</td>
          <td>{m.label}</td>
          <td>
            {m.from === null ? 'set to' : `v${m.from} →`} v{m.to}
          </td>
          <td>
            {m.by}
            {m.experiment ? (
              <>
                {', released by stopping '}
                <Link to={`/experiments/${m.experiment.id}/results`}>{m.experiment.name}</Link>
              </>
            ) : null}
          </td>
        </tr>
      ))}
    </DataTable>
  );
}

/**
 * A label and a version, then a confirmation that says what clients get from their next poll.
 * Members see why there is no form: the server lets only admins and owners move a label.
 */
function MoveLabelForm({ prompt }: { prompt: Prompt }) {
  const me = useWhoami();
  const [label, setLabel] = useState('production');
  const [version, setVersion] = useState(prompt.versions[0]?.version ?? 1);
  const [confirming, setConfirming] = useState(false);
  if (!me.data) return null;
  if (me.data.role === 'member') return <p className="hint">Admins and owners move labels.</p>;
  return (
    <Form
      className="row"
      label="Move a label"
      onSubmit={() => {
        setConfirming(true);
      }}
    >
      <label>
        Label
        <input
          value={label}
          onChange={(e) => setLabel(e.target.value)}
          list="prompt-labels"
          required
        />
      </label>
      <datalist id="prompt-labels">
        {Object.keys(prompt.labels).map((l) => (
          <option key={l} value={l} />
        ))}
      </datalist>
      <label>
        Version
        <select value={version} onChange={(e) => setVersion(Number(e.target.value))}>
          {prompt.versions.map((v) => (
            <option key={v.version} value={v.version}>
              v{v.version}
            </option>
          ))}
        </select>
      </label>
      <button type="submit">Move label</button>
      {confirming ? (
        <MoveDialog
          prompt={prompt}
          label={label}
          version={version}
          onClose={() => setConfirming(false)}
        />
      ) : null}
    </Form>
  );
}

function MoveDialog({
  prompt,
  label,
  version,
  onClose,
}: {
  prompt: Prompt;
  label: string;
  version: number;
  onClose: () => void;
}) {
  const move = useMoveLabel(prompt.name);
  const current = prompt.labels[label];
  const outcome =
    current === version
      ? `${label} already points at v${version}: nothing changes.`
      : `from their next config poll, clients asking for ${prompt.name} under ${label} get v${version}${current === undefined ? '' : ` instead of v${current}`}; users in a running experiment on this prompt keep their variant’s version.`;
  return (
    <ActionDialog
      title={`Move ${label} of ${prompt.name} to v${version}?`}
      outcome={outcome}
      confirmLabel={`Yes, point ${label} at v${version}`}
      pending={move.isPending}
      error={move.error}
      onConfirm={() => move.mutate({ label, version }, { onSuccess: onClose })}
      onClose={onClose}
    />
  );
}
