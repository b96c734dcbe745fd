import type { Dataset } from '../../api/client.ts';
import { DataTable } from '../../components/DataTable.tsx';
import { ListPage, NameCell } from '../../components/ListPage.tsx';
import { NameAndDescriptionForm } from '../../components/NameAndDescriptionForm.tsx';
import { useCreateDataset, useDatasets } from './queries.ts';

/** The org's datasets by name, each at its latest version, and a form to make one. */
export function DatasetsPage() {
  return (
    <ListPage
      title="Datasets"
      intro={
        <>
          Items an offline run sends through each variant. Every change mints a new version, and a
          run pins the version it used.
        </>
      }
      form={<NewDatasetForm />}
      query={useDatasets()}
    >
      {(list) => <DatasetsTable datasets={list} />}
    </ListPage>
  );
}

function DatasetsTable({ datasets }: { datasets: Dataset[] }) {
  return (
    <DataTable label="Datasets" columns={['Name', 'Description', 'Version', 'Items', 'Changed']}>
      {datasets.map((d) => (
        <tr key={d.id} data-testid={`dataset-${d.name}`}>
          <NameCell to={`/datasets/${d.id}`} name={d.name} />
          <td>{d.description ?? ''}</td>
          <td data-testid="version">{d.version}</td>
          <td data-testid="item-count">{d.item_count.toLocaleString('en-US')}</td>
          <td>{new Date(d.updated_at).toLocaleString()}</td>
        </tr>
      ))}
    </DataTable>
  );
}

function NewDatasetForm() {
  const create = useCreateDataset();
  return (
    <NameAndDescriptionForm what="dataset" create={create} pathOf={(d) => `/datasets/${d.id}`} />
  );
}
