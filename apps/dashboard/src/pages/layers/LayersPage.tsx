import { useState } from 'react';
import { Link, useNavigate } from 'react-router';
import type { Layer } from '../../api/client.ts';
import { BucketCountField } from '../../components/BucketCountField.tsx';
import { DataTable } from '../../components/DataTable.tsx';
import { ProblemView, QueryList } from '../../components/states.tsx';
import { ownedBuckets } from './layer-segments.ts';
import { useCreateLayer, useLayers } from './queries.ts';

/** The org's layers, each with how much of it is owned and free, and a form to make one. */
export function LayersPage() {
  const layers = useLayers();
  return (
    <section>
      <h1>Layers</h1>
      <p className="hint">
        Experiments in one layer never share a user: each owns its own buckets of the layer’s users,
        set by its layer weight when it is created in the editor.
      </p>
      <NewLayerForm />
      <QueryList query={layers} what="layers" empty="No layers yet.">
        {(list) => <LayersTable layers={list} />}
      </QueryList>
    </section>
  );
}

function LayersTable({ layers }: { layers: Layer[] }) {
  return (
    <DataTable label="Layers" columns={['Name', 'Buckets', 'Owned', 'Free', 'Experiments']}>
      {layers.map((l) => (
        <tr key={l.id} data-testid={`layer-${l.name}`}>
          <th scope="row">
            <Link to={`/layers/${encodeURIComponent(l.name)}`}>{l.name}</Link>
          </th>
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
    <form
      className="card row"
      aria-label="New layer"
      onSubmit={(e) => {
        e.preventDefault();
        create.mutate(
          { name, bucket_count: bucketCount, salt },
          { onSuccess: (l) => navigate(`/layers/${encodeURIComponent(l.name)}`) },
        );
      }}
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
      <button type="submit" disabled={create.isPending}>
        Create layer
      </button>
      <p className="hint">Name, bucket count and salt are frozen once the layer exists.</p>
      {create.error ? <ProblemView error={create.error} /> : null}
    </form>
  );
}
