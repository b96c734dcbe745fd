import { useState } from 'react';
import { Link, useNavigate } from 'react-router';
import type { Dataset } from '../../api/client.ts';
import { DataTable } from '../../components/DataTable.tsx';
import { Empty, ProblemView, QueryView } from '../../components/states.tsx';
import { useCreateDataset, useDatasets } from './queries.ts';

/** The org's datasets by name, each at its latest version, and a form to make one. */
export function DatasetsPage() {
  const datasets = useDatasets();
  return (
    <section>
      <h1>Datasets</h1>
      <p className="hint">
        Items an offline run sends through each variant. Every change mints a new version, and a run
        pins the version it used.
      </p>
      <NewDatasetForm />
      <QueryView query={datasets} what="datasets">
        {(list) =>
          list.length === 0 ? <Empty>No datasets yet.</Empty> : <DatasetsTable datasets={list} />
        }
      </QueryView>
    </section>
  );
}

function DatasetsTable({ datasets }: { datasets: Dataset[] }) {
  return (
    <DataTable label="Datasets" columns={['Name', 'Description', 'Version', 'Items', 'Changed']}>
      {datasets.map((d) => (
        <tr key={d.id} data-testid={`dataset-${d.name}`}>
          <th scope="row">
            <Link to={`/datasets/${d.id}`}>{d.name}</Link>
          </th>
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
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const create = useCreateDataset();
  const navigate = useNavigate();
  return (
    <form
      className="card row"
      aria-label="New dataset"
      onSubmit={(e) => {
        e.preventDefault();
        create.mutate(
          { name, ...(description ? { description } : {}) },
          { onSuccess: (d) => navigate(`/datasets/${d.id}`) },
        );
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
        Create dataset
      </button>
      {create.error ? <ProblemView error={create.error} /> : null}
    </form>
  );
}
