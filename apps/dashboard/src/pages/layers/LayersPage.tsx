import { useState } from 'react';
import { useNavigate } from 'react-router';
import type { Layer } from '../../api/client.ts';
import { BucketCountField } from '../../components/BucketCountField.tsx';
import { DataTable } from '../../components/DataTable.tsx';
import { ListPage, NameCell } from '../../components/ListPage.tsx';
import { MutationForm } from '../../components/MutationForm.tsx';
import { ownedBuckets } from './layer-segments.ts';
import { useCreateLayer, useLayers } from './queries.ts';

/** The org's layers, each with how much of it is owned and free, and a form to make one. */
export function LayersPage() {
  return (
    <ListPage
      title="Layers"
      intro={
        <>
          Experiments in one layer never share a user: each owns its own buckets of the layer’s
          users, set by its layer weight when it is created in the editor.
        </>
      }
      form={<NewLayerForm />}
      query={useLayers()}
    >
      {(list) => <LayersTable layers={list} />}
    </ListPage>
  );
}

function LayersTable({ layers }: { layers: Layer[] }) {
  return (
    <DataTable label="Layers" columns={['Name', 'Buckets', 'Owned', 'Free', 'Experiments']}>
      {layers.map((l) => (
        <tr key={l.id} data-testid={`layer-${l.name}`}>
          <NameCell to={`/layers/${encodeURIComponent(l.name)}`} name={l.name} />
          <td data-testid="bucket-count">{l.bucket_count.toLocaleString('en-US')}</td>
          <td data-testid="owned">{ownedBuckets(l.bucket_map).toLocaleString('en-US')}</td>
          <td data-testid="free">{l.free_buckets.toLocaleString('en-US')}</td>
          <td>{new Set(l.bucket_map.filter((r) => !r.retired).map((r) => r.experiment)).size}</td>
        </tr>
      ))}
    </DataTable>
  );
}

/** A fresh salt, as the experiment editor proposes one: any text without ":" will do. */
const proposedSalt = () => `layer-${Math.random().toString(36).slice(2, 12)}`;

function NewLayerForm() {
  const [name, setName] = useState('');
  const [bucketCount, setBucketCount] = useState(1000);
  const [salt, setSalt] = useState(proposedSalt);
  const create = useCreateLayer();
  const navigate = useNavigate();
  return (
    <MutationForm
      className="card row"
      label="New layer"
      mutation={create}
      submit="Create layer"
      after={<p className="hint">Name, bucket count and salt are frozen once the layer exists.</p>}
      onSubmit={() =>
        create.mutate(
          { name, bucket_count: bucketCount, salt },
          { onSuccess: (l) => navigate(`/layers/${encodeURIComponent(l.name)}`) },
        )
      }
    >
      <label>
        Name
        <input value={name} onChange={(e) => setName(e.target.value)} required />
      </label>
      <BucketCountField value={bucketCount} onChange={setBucketCount} />
      <label>
        Salt
        <input value={salt} onChange={(e) => setSalt(e.target.value)} required />
      </label>
    </MutationForm>
  );
}
