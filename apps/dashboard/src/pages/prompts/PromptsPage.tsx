import type { PromptSummary } from '../../api/client.ts';
import { DataTable } from '../../components/DataTable.tsx';
import { ListPage, NameCell } from '../../components/ListPage.tsx';
import { NameAndDescriptionForm } from '../../components/NameAndDescriptionForm.tsx';
import { LabelBadges } from './LabelBadges.tsx';
import { useCreatePrompt, usePrompts } from './queries.ts';

/** `/prompts`: the org's prompts by name, each with its newest version and its labels. */
export function PromptsPage() {
  return (
    <ListPage
      title="Prompts"
      intro={
        <>
          Versions never change once written; a label (production, staging, …) points at one, and
          clients fetch a prompt by name and label. Stopping an experiment with ship on a stored
          version moves production to it.
        </>
      }
      form={<NewPromptForm />}
      query={usePrompts()}
    >
      {(list) => <PromptsTable prompts={list} />}
    </ListPage>
  );
}

function PromptsTable({ prompts }: { prompts: PromptSummary[] }) {
  return (
    <DataTable label="Prompts" columns={['Name', 'Description', 'Versions', 'Labels']}>
      {prompts.map((p) => (
        <tr key={p.id} data-testid={`prompt-${p.name}`}>
          <NameCell to={`/prompts/${encodeURIComponent(p.name)}`} name={p.name} />
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
