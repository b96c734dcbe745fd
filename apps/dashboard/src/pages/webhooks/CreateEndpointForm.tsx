import { useState } from 'react';
import { ProblemView } from '../../components/states.tsx';
import { EventTypesField } from './EventTypesField.tsx';
import { type EventType, useCreateEndpoint } from './queries.ts';
import { SecretShown } from './SecretShown.tsx';

/** URL, description and event types; the answer's secret is shown once, under the form. */
export function CreateEndpointForm() {
  const [url, setUrl] = useState('');
  const [description, setDescription] = useState('');
  const [types, setTypes] = useState<EventType[]>([]);
  const create = useCreateEndpoint();
  return (
    <form
      className="card form"
      aria-label="Add an endpoint"
      onSubmit={(e) => {
        e.preventDefault();
        create.mutate(
          { url, description, event_types: types },
          {
            onSuccess: () => {
              setUrl('');
              setDescription('');
              setTypes([]);
            },
          },
        );
      }}
    >
      <h2>Add an endpoint</h2>
      <label>
        URL
        <input
          type="url"
          required
          placeholder="https://hooks.example.com/arbiter"
          value={url}
          onChange={(e) => setUrl(e.target.value)}
        />
      </label>
      <label>
        Description
        <input value={description} onChange={(e) => setDescription(e.target.value)} />
      </label>
      <EventTypesField value={types} onChange={setTypes} />
      <button type="submit" disabled={create.isPending}>
        Add endpoint
      </button>
      {create.data ? (
        <SecretShown
          secret={create.data.secret}
          what={`Endpoint added: ${create.data.url}. Its signing secret`}
        />
      ) : null}
      {create.error ? <ProblemView error={create.error} /> : null}
    </form>
  );
}
