import { useState } from 'react';
import { ConfirmButton } from '../../components/ConfirmButton.tsx';
import { Form } from '../../components/Form.tsx';
import { ProblemView } from '../../components/states.tsx';
import { utcMinute } from '../lifecycle/lifecycle.ts';
import { DeliveriesTable } from './DeliveriesTable.tsx';
import { EventTypesField } from './EventTypesField.tsx';
import { eventsText } from './event-types.ts';
import {
  type Endpoint,
  type EventType,
  useDeleteEndpoint,
  useRotateSecret,
  useSendTest,
  useUpdateEndpoint,
} from './queries.ts';
import { SecretShown } from './SecretShown.tsx';

/** One endpoint: its state first (a disabled one cannot be missed), its actions, its deliveries. */
export function EndpointCard({ endpoint: e }: { endpoint: Endpoint }) {
  return (
    <section className="card endpoint" aria-label={`Endpoint ${e.url}`}>
      <h2>
        <code>{e.url}</code>{' '}
        <span className={e.enabled ? 'badge better' : 'badge worse'}>
          {e.enabled ? 'Enabled' : 'Disabled'}
        </span>
      </h2>
      {e.description ? <p>{e.description}</p> : null}
      <HealthNote endpoint={e} />
      <EndpointActions endpoint={e} />
      <DeliveriesTable endpointId={e.id} />
    </section>
  );
}

/**
 * Disabled by the server (`disabled_reason`): a red banner with the reason, since when it fails
 * and the button that enables it again. Failing but still enabled: a warning with the date.
 */
function HealthNote({ endpoint: e }: { endpoint: Endpoint }) {
  const update = useUpdateEndpoint(e.id);
  const since = e.failing_since ? ` Failing since ${utcMinute(e.failing_since)}.` : '';
  if (e.disabled_reason !== null)
    return (
      <div className="endpoint-disabled" role="alert" data-testid="endpoint-disabled">
        <strong>Disabled by Arbiter: {e.disabled_reason}.</strong>
        {since} It is sent nothing until it is enabled again; fix the receiver first.{' '}
        <button type="button" onClick={() => update.mutate({ enabled: true })}>
          Enable again
        </button>
        {update.error ? <ProblemView error={update.error} /> : null}
      </div>
    );
  if (e.enabled && e.failing_since !== null)
    return (
      <p className="note" data-testid="endpoint-failing">
        Every attempt has failed since {utcMinute(e.failing_since)}; after 5 days of failures
        Arbiter disables the endpoint.
      </p>
    );
  return null;
}

function EndpointActions({ endpoint: e }: { endpoint: Endpoint }) {
  const [editing, setEditing] = useState(false);
  const update = useUpdateEndpoint(e.id);
  const remove = useDeleteEndpoint(e.id);
  const rotate = useRotateSecret(e.id);
  const test = useSendTest(e.id);
  const error = update.error ?? remove.error ?? rotate.error ?? test.error;
  return (
    <>
      <p>
        Events: <span data-testid="endpoint-events">{eventsText(e.event_types)}</span>
      </p>
      {editing ? <EventsEditor endpoint={e} onDone={() => setEditing(false)} /> : null}
      <div className="actions">
        <button type="button" onClick={() => test.mutate()} disabled={!e.enabled}>
          Send test event
        </button>
        {editing ? null : (
          <button type="button" onClick={() => setEditing(true)}>
            Edit event types
          </button>
        )}
        {e.disabled_reason === null ? (
          <button type="button" onClick={() => update.mutate({ enabled: !e.enabled })}>
            {e.enabled ? 'Disable' : 'Enable'}
          </button>
        ) : null}
        <ConfirmButton
          label="Rotate secret"
          question="A new secret signs from now on; the current one also signs for 24 hours."
          confirmLabel="Yes, rotate"
          onConfirm={() => rotate.mutate()}
        />
        <ConfirmButton
          label="Delete"
          question="Delete this endpoint and its queued deliveries?"
          confirmLabel="Yes, delete"
          onConfirm={() => remove.mutate()}
        />
      </div>
      {test.data ? <p role="status">Test event queued: {test.data.id}</p> : null}
      {rotate.data ? (
        <SecretShown
          secret={rotate.data.secret}
          what={`New secret (the previous one signs too until ${utcMinute(rotate.data.previous_valid_until)})`}
        />
      ) : null}
      {error ? <ProblemView error={error} /> : null}
    </>
  );
}

function EventsEditor({ endpoint: e, onDone }: { endpoint: Endpoint; onDone: () => void }) {
  const [types, setTypes] = useState<EventType[]>(e.event_types as EventType[]);
  const update = useUpdateEndpoint(e.id);
  return (
    <Form
      className="form"
      label="Event types"
      onSubmit={() => {
        update.mutate({ event_types: types }, { onSuccess: onDone });
      }}
    >
      <EventTypesField value={types} onChange={setTypes} />
      <div className="actions">
        <button type="submit" disabled={update.isPending}>
          Save event types
        </button>
        <button type="button" onClick={onDone}>
          Cancel
        </button>
      </div>
      {update.error ? <ProblemView error={update.error} /> : null}
    </Form>
  );
}
