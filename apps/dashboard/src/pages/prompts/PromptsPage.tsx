import { Link } from 'react-router';
import type { PromptSummary } from '../../api/client.ts';
import { DataTable } from '../../components/DataTable.tsx';
import { NameAndDescriptionForm } from '../../components/NameAndDescriptionForm.tsx';
import { QueryList } from '../../components/states.tsx';
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
      <QueryList query={prompts} what="prompts" empty="No prompts yet.">
        {(list) => <PromptsTable prompts={list} />}
      </QueryList>
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
  const create = useCreatePrompt();
  return (
    <NameAndDescriptionForm
      what="prompt"
      create={create}
      pathOf={(p) => `/prompts/${encodeURIComponent(p.name)}`}
    />
  );
}
