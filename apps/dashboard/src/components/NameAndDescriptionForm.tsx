import { useState } from 'react';
import { useNavigate } from 'react-router';
import { MutationForm } from './MutationForm.tsx';

/** A create mutation whose body is a name and, when one is typed, a description. */
interface CreateNamed<T> {
  mutate: (
    body: { name: string; description?: string },
    options: { onSuccess: (created: T) => void },
  ) => void;
  isPending: boolean;
  error: unknown;
}

/**
 * "New <what>": a required name and an optional description (left out of the body when
 * blank, so the server stores none), then the page of what was made.
 */
export function NameAndDescriptionForm<T>({
  what,
  create,
  pathOf,
}: {
  what: string;
  create: CreateNamed<T>;
  /** Where the made thing's page is. */
  pathOf: (created: T) => string;
}) {
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const navigate = useNavigate();
  return (
    <MutationForm
      className="card row"
      label={`New ${what}`}
      mutation={create}
      submit={`Create ${what}`}
      onSubmit={() => {
        const body = description === '' ? { name } : { name, description };
        create.mutate(body, { onSuccess: (created) => navigate(pathOf(created)) });
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
    </MutationForm>
  );
}
