import { useState } from 'react';
import { MutationForm } from '../../components/MutationForm.tsx';
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
    <MutationForm
      className="card form"
      label="Add an endpoint"
      mutation={create}
      submit="Add endpoint"
      after={
        create.data ? (
          <SecretShown
            secret={create.data.secret}
            what={`Endpoint added: ${create.data.url}. Its signing secret`}
          />
        ) : null
      }
      onSubmit={() =>
        create.mutate(
          { url, description, event_types: types },
          {
            onSuccess: () => {
              setUrl('');
              setDescription('');
              setTypes([]);
            },
          },
        )
      }
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
    </MutationForm>
  );
}
