import { useState } from 'react';
import { Link, useNavigate } from 'react-router';
import type { PromptSummary } from '../../api/client.ts';
import { DataTable } from '../../components/DataTable.tsx';
import { Empty, ProblemView, QueryView } from '../../components/states.tsx';
import { LabelBadges } from './LabelBadges.tsx';
import { useCreatePrompt, usePrompts } from './queries.ts';

/** `/prompts`: the org's prompts by name, each with its newest version and its labels. */
export function PromptsPage() {
  const prompts = usePrompts();
  return (
    <section>
      <h1>Prompts</h1>
      <p className="hint">
        Versions never change once written; a label (production, staging, …) points at one, and
        clients fetch a prompt by name and label. Stopping an experiment with ship on a stored
        version moves production to it.
      </p>
      <NewPromptForm />
      <QueryView query={prompts} what="prompts">
        {(list) =>
          list.length === 0 ? <Empty>No prompts yet.</Empty> : <PromptsTable prompts={list} />
        }
      </QueryView>
    </section>
  );
}

function PromptsTable({ prompts }: { prompts: PromptSummary[] }) {
  return (
    <DataTable label="Prompts" columns={['Name', 'Description', 'Versions', 'Labels']}>
      {prompts.map((p) => (
        <tr key={p.id} data-testid={`prompt-${p.name}`}>
          <th scope="row">
            <Link to={`/prompts/${encodeURIComponent(p.name)}`}>{p.name}</Link>
          </th>
          <td>{p.description}</td>
          <td>{p.latest_version === 0 ? 'none yet' : p.latest_version}</td>
          <td>
            <LabelBadges labels={p.labels} />
          </td>
        </tr>
      ))}
    </DataTable>
  );
}

/** Name and description; versions are added through the API or a client (see docs/prompts.md). */
function NewPromptForm() {
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const create = useCreatePrompt();
  const navigate = useNavigate();
  return (
    <form
      className="card row"
      aria-label="New prompt"
      onSubmit={(e) => {
        e.preventDefault();
        const body = description === '' ? { name } : { name, description };
        create.mutate(body, {
          onSuccess: (p) => navigate(`/prompts/${encodeURIComponent(p.name)}`),
        });
      }}
    >
      <label>
        Name
        <input value={name} onChange={(e) => setName(e.target.value)} required />
      </label>
      <label>
        Description
        <input value={description} onChange={(e) => setDescription(e.target.value)} />
      </label>
      <button type="submit" disabled={create.isPending}>
        Create prompt
      </button>
      {create.error ? <ProblemView error={create.error} /> : null}
    </form>
  );
}
